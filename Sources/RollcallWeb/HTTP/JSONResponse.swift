import Foundation
import Hummingbird

/// A JSON answer built from dictionaries, for WebAuthn options whose shape the browser API fixes.
package struct JSONResponse {
    package var object: [String: Any]

    package init(_ object: [String: Any]) { self.object = object }

    package func response(status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// A JSON object written field by field, for the answers of the check-in path that come thousands a second: the
/// same JSON as `JSONCoding.encoder` writes for them, without going through `Encodable`.
package struct JSONWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    package init() {
        bytes.reserveCapacity(256)
    }

    package mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    package mutating func field(_ name: String, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    package mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A date as every answer writes it, ISO 8601 in UTC with milliseconds.
    package mutating func field(_ name: String, _ value: Date) {
        field(name, value.millisecondText)
    }

    package mutating func object(_ name: String, _ body: (inout JSONWriter) -> Void) {
        key(name)
        var inner = JSONWriter()
        body(&inner)
        bytes.append(contentsOf: inner.closed)
    }

    private var closed: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// The object as written, for a test to read it as JSON.
    package var text: String { String(decoding: closed, as: UTF8.self) }

    private mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xf)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The answer, with the headers Hummingbird's JSON encoding gives every other answer.
    package func response(status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: closed)))
    }
}
