import Foundation
import Hummingbird
import NIOCore
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWords

extension Request {
    /// Decodes a JSON body, answering in Rollcall's error format for every way it can be wrong.
    /// `limit`: the body's most bytes, where a request may be larger than the usual `maxUploadSize`.
    package func decodeJSON<T: Decodable>(as type: T.Type, context: AppRequestContext, limit: Int? = nil) async throws
        -> T
    {
        guard headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            if headers[.contentType] == nil && (headers[.contentLength] ?? "0") == "0" {
                throw AppError(
                    .badRequest, .missingBody,
                    "Send the request's fields as JSON, with Content-Type: application/json.")
            }
            throw AppError(
                .unsupportedMediaType, .unsupportedMediaType,
                "Send the request body as JSON, with Content-Type: application/json."
            )
        }
        let buffer = try await collectBody(limit: limit ?? context.maxUploadSize)
        try Self.refuseNulls(buffer)
        do {
            return try Self.jsonDecoder.decode(T.self, from: buffer)
        } catch let error as DecodingError {
            throw AppError.from(error)
        }
    }

    /// Refuses `null` anywhere in a body: an optional field is left out, never sent as null, so that "not sent" and
    /// "cleared" can never be confused. Bodies without the word `null`, nearly all, cost one scan.
    package static func refuseNulls(_ buffer: ByteBuffer) throws {
        guard mentionsNull(buffer),
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)),
            let path = nullPath(in: object)
        else { return }
        throw AppError(
            .badRequest, .nullNotAllowed,
            "Leave “\(path)” out instead of sending null.",
            details: ["field": .text(path)])
    }

    /// Whether the bytes hold `null` anywhere; a plain loop, since Foundation's generic search costs more than the
    /// rest of decoding a check-in.
    package static func mentionsNull(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            guard bytes.count >= 4 else { return false }
            for index in 0...(bytes.count - 4)
            where bytes[index] == UInt8(ascii: "n") && bytes[index + 1] == UInt8(ascii: "u")
                && bytes[index + 2] == UInt8(ascii: "l") && bytes[index + 3] == UInt8(ascii: "l")
            {
                return true
            }
            return false
        }
    }

    private static func nullPath(in value: Any, at path: String = "") -> String? {
        switch value {
        case is NSNull: return path.isEmpty ? "body" : path
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if let found = nullPath(in: object[key]!, at: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = nullPath(in: element, at: "\(path)[\(index)]") { return found }
            }
            return nil
        default: return nil
        }
    }

    /// Dates travel as ISO-8601 text, with or without fractional seconds.
    package static var jsonDecoder: JSONDecoder { JSONCoding.decoder }

    /// The whole body, refused with a 413 past `limit` bytes.
    package func collectBody(limit: Int) async throws -> ByteBuffer {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw AppError.bodyTooLarge(limit: limit)
        }
        do {
            return try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw AppError.bodyTooLarge(limit: limit)
        }
    }

    /// An uploaded picture: PNG, JPEG, WebP or GIF, at most 2 MB, read whole and written anew without its text
    /// and metadata (`PictureFile`); never stored as sent.
    package func imageUpload() async throws -> StoredImage {
        let bytes = Array(buffer: try await collectBody(limit: StoredImage.maxBytes))
        do {
            let picture = try PictureFile.cleaned(bytes)
            return StoredImage(contentType: picture.contentType, data: picture.bytes)
        } catch {
            throw AppError(
                .unsupportedMediaType, .unsupportedImage,
                "Upload a PNG, JPEG, WebP or GIF picture; this file is \(error.reason).")
        }
    }

    /// Refuses a plain request to a WebSocket's address, once it has passed every other check: 426, so that a
    /// client learns it must upgrade rather than getting an empty 200.
    package func requireWebSocketUpgrade() throws {
        guard headers[.upgrade]?.lowercased() == "websocket" else {
            var error = AppError(
                .upgradeRequired, .websocketRequired, "This address is a WebSocket: connect with a WebSocket client.")
            error.headers[.upgrade] = "websocket"
            throw error
        }
    }

    /// Whether the client is a program, not a browser: it sends a bearer token or asks for JSON rather than HTML.
    package var wantsJSON: Bool {
        if headers[.authorization]?.lowercased().hasPrefix("bearer ") == true { return true }
        guard let accept = headers[.accept]?.lowercased() else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// A query parameter, trimmed, `nil` when absent or blank.
    package func query(_ name: String) -> String? {
        uri.queryParameters.get(name).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension AppError {
    /// Names the field at fault so the person knows which input to fix.
    package static func from(_ error: DecodingError) -> AppError {
        func field(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let name = field(context.codingPath + [key])
            return AppError(.badRequest, .missingField, "“\(name)” is missing.", details: ["field": .text(name)])
        case .valueNotFound(_, let context):
            let name = field(context.codingPath)
            return AppError(.badRequest, .missingField, "“\(name)” is missing.", details: ["field": .text(name)])
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return .invalidJSON("The request body must be a JSON object.")
        case .typeMismatch(let type, let context):
            let name = field(context.codingPath)
            return AppError(
                .badRequest, .wrongType, "“\(name)” must be \(describe(type)).", details: ["field": .text(name)])
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .invalidJSON("The request body is not valid JSON.")
            }
            let name = field(context.codingPath)
            return AppError(
                .badRequest, .wrongType, "“\(name)” has a value Rollcall does not accept.",
                details: ["field": .text(name)])
        @unknown default:
            return .invalidJSON("The request body is not valid JSON.")
        }
    }

    private static func describe(_ type: Any.Type) -> Phrase {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}

extension Optional where Wrapped == String {
    /// `nil` for absent or blank text, so that optional inputs can be left empty in a form.
    package var nonBlank: String? {
        self.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
    }
}

/// Runs a rule from the core, answering its violation as a 400 naming the field.
package func check<T>(_ rule: () throws(RuleViolation) -> T) throws -> T {
    do {
        return try rule()
    } catch {
        throw AppError.invalid(error)
    }
}

extension ResponseEncodable {
    /// The encoded response with a status other than 200, such as 201 for something created.
    package func response(from request: Request, context: some RequestContext, status: HTTPResponse.Status) throws
        -> Response
    {
        var response = try self.response(from: request, context: context)
        response.status = status
        return response
    }
}
