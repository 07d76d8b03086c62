import Foundation
import Hummingbird
import NIOCore
import RollcallCore
import RollcallProtocol

/// Every error Rollcall answers with: a stable code, a sentence a person understands, and its HTTP status.
public struct AppError: Error, HTTPResponseError, Equatable {
    public var status: HTTPResponse.Status
    /// Stable, machine-readable; clients branch on it, so it never changes once published: an `ErrorCode`, or for a
    /// field that breaks a rule, `invalid_` and the field (`RuleViolation`).
    public private(set) var code: String
    /// The sentence, kept as English words and values, so that it is said in the language of whoever is answered.
    public var phrase: Phrase
    /// Seconds after which a refused request may be tried again.
    public var retryAfter: Int?
    /// Data for clients beside the sentence, such as the distance of an `out_of_range` refusal.
    public var details: [String: Detail]?
    /// Headers the answer carries besides `Retry-After`, such as `Allow` for a method a path does not take.
    public var headers: HTTPFields = [:]

    public init(
        _ status: HTTPResponse.Status, _ code: ErrorCode, _ message: Phrase, retryAfter: Int? = nil,
        details: [String: Detail]? = nil
    ) {
        self.init(status, rawCode: code.rawValue, message, retryAfter: retryAfter, details: details)
    }

    private init(
        _ status: HTTPResponse.Status, rawCode code: String, _ message: Phrase, retryAfter: Int? = nil,
        details: [String: Detail]? = nil
    ) {
        self.status = status
        self.code = code
        self.phrase = message
        self.retryAfter = retryAfter
        self.details = details
    }

    /// One value of an error's details: a number, a word, or yes or no.
    public enum Detail: Codable, Equatable, Sendable {
        case number(Double)
        case text(String)
        case flag(Bool)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            case .flag(let value): try container.encode(value)
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .flag(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    /// The JSON body every error shares: `{"error": {"code": …, "message": …, "details": {…}}}`.
    package struct Body: Codable {
        package struct Content: Codable {
            package var code: String
            package var message: String
            package var details: [String: Detail]?
        }

        package var error: Content
    }

    /// The sentence in the language of whoever is answered.
    package func message(to reader: Reader) -> String { reader.say(phrase) }

    /// The answer where Hummingbird answers the error itself: in the request's language where its context knows it.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try response(to: (context as? any ReaderContext)?.reader ?? .english)
    }

    /// The JSON answer, its sentence said to `reader`.
    package func response(to reader: Reader) throws -> Response {
        var details = details
        if let retryAfter {
            details = (details ?? [:]).merging(["retryAfterSeconds": .number(Double(retryAfter))]) { $1 }
        }
        let data = try JSONEncoder().encode(
            Body(error: .init(code: code, message: message(to: reader), details: details)))
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension AppError {
    package static let notSignedIn = AppError(.unauthorized, .notSignedIn, "Sign in to continue.")
    package static let accountDisabled = AppError(
        .forbidden, .accountDisabled, "This account has been disabled. Ask your school's Rollcall admin."
    )
    package static let csrf = AppError(
        .forbidden, .csrfTokenInvalid, "This form has expired. Reload the page and try again."
    )

    /// A roster reaches people: only someone whose address is confirmed, or whom the school or an admin vouches
    /// for, adds students, imports rosters, invites or names colleagues.
    package static let emailUnconfirmed = AppError(
        .forbidden, .emailUnconfirmed,
        "Confirm your email address first: open the link we mailed you (your courses page sends it again). Then you can add students, import a roster and invite people."
    )
    package static let courseArchived = AppError.conflict(
        .courseArchived, "This course is archived: it keeps its records and takes no new sessions nor students.")

    package static func forbidden(_ message: Phrase) -> AppError { AppError(.forbidden, .forbidden, message) }

    /// 404 for a thing that does not exist: “No such \(what).”
    package static func notFound(_ code: ErrorCode, _ what: Phrase) -> AppError {
        AppError(.notFound, code, "No such \(what).")
    }

    /// 400 for a field that breaks one of Rollcall's rules, coded `invalid_` and the field, which `details.field`
    /// names as sent so that a page can mark the input at fault.
    package static func invalid(_ violation: RuleViolation) -> AppError {
        AppError(.badRequest, rawCode: violation.code, violation.message, details: ["field": .text(violation.field)])
    }

    package static func invalidJSON(_ message: Phrase) -> AppError { AppError(.badRequest, .invalidJSON, message) }

    package static func conflict(_ code: ErrorCode, _ message: Phrase) -> AppError {
        AppError(.conflict, code, message)
    }

    package static func bodyTooLarge(limit: Int) -> AppError {
        AppError(.contentTooLarge, .bodyTooLarge, "That is too large: the limit is \(limit.byteCountText).")
    }
}

extension Int {
    package var byteCountText: String {
        self >= 1024 * 1024 ? "\(self / (1024 * 1024)) MB" : "\(self / 1024) KB"
    }
}
