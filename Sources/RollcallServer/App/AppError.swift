import Foundation
import Hummingbird
import NIOCore
import RollcallCore

/// Every error Rollcall answers with: a stable code, a sentence a person understands, and its HTTP status.
public struct AppError: Error, HTTPResponseError, Equatable {
    public var status: HTTPResponse.Status
    /// Stable, machine-readable; clients branch on it, so it never changes once published.
    public var code: String
    public var message: String
    /// Seconds after which a refused request may be tried again.
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The JSON body every error shares: `{"error": {"code": …, "message": …}}`.
    struct Body: Codable {
        struct Detail: Codable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(Body(error: .init(code: code, message: message)))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension AppError {
    static let notSignedIn = AppError(.unauthorized, "not_signed_in", "Sign in to continue.")
    static let accountDisabled = AppError(
        .forbidden, "account_disabled", "This account has been disabled. Ask your school's Rollcall admin."
    )
    static let csrf = AppError(
        .forbidden, "csrf_token_invalid", "This form has expired. Reload the page and try again."
    )

    static func forbidden(_ message: String) -> AppError { AppError(.forbidden, "forbidden", message) }

    static func notFound(_ what: String) -> AppError {
        AppError(
            .notFound, "\(what.lowercased().replacingOccurrences(of: " ", with: "_"))_not_found", "No such \(what).")
    }

    static func invalid(_ violation: RuleViolation) -> AppError {
        AppError(.badRequest, violation.code, violation.message)
    }

    static func invalidJSON(_ message: String) -> AppError { AppError(.badRequest, "invalid_json", message) }

    static func conflict(_ code: String, _ message: String) -> AppError { AppError(.conflict, code, message) }

    static func bodyTooLarge(limit: Int) -> AppError {
        AppError(.contentTooLarge, "body_too_large", "That is too large: the limit is \(limit.byteCountText).")
    }
}

extension Int {
    var byteCountText: String {
        self >= 1024 * 1024 ? "\(self / (1024 * 1024)) MB" : "\(self / 1024) KB"
    }
}
