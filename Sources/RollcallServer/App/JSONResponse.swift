import Foundation
import Hummingbird

/// A JSON answer built from dictionaries, for WebAuthn options whose shape the browser API fixes.
struct JSONResponse {
    var object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    func response(status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
