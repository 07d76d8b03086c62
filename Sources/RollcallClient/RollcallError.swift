import Foundation
import RollcallProtocol

/// A refusal from the server, or a request that got no answer: the stable code to branch on and a sentence for people.
public struct RollcallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable and machine-readable, such as `invalid_email` or `code_expired`.
    public var code: String
    /// A sentence for the person, saying what to do.
    public var message: String
    /// Data beside the sentence, such as `distanceMeters` for `out_of_range` or `step` for `verification_failed`.
    public var details: [String: JSONValue]
    /// The HTTP status of the refusal; `nil` when no answer came (see `isNetworkFailure`), or when this client
    /// refused before sending (a link that is not a Rollcall code, a passkey the phone does not have).
    public var status: Int?
    /// The bad rows of a refused roster import (`invalid_rows`), each with its line and its own code.
    public var rows: [RowError]
    /// Seconds the server asks to wait before trying again (`Retry-After`), where it gave some.
    public var retryAfter: Int?

    /// One refused row of an imported file.
    public struct RowError: Sendable, Equatable, Codable {
        public var line: Int
        public var code: String
        public var message: String
    }

    public init(
        code: String, message: String, details: [String: JSONValue] = [:], status: Int?, rows: [RowError] = [],
        retryAfter: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.status = status
        self.rows = rows
        self.retryAfter = retryAfter
    }

    /// True when the request got no answer (no network, server down, connection lost): trying again may help.
    public var isNetworkFailure: Bool { clientCode == .networkUnavailable }

    /// The server's code, as the shared list names it; `nil` for a code this client made or a newer server's.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }
    /// The code this client gave a failure the server never answered; `nil` for the server's own.
    public var clientCode: ClientErrorCode? { ClientErrorCode(rawValue: code) }

    public var description: String { message }

    /// A refusal this client makes itself, with a code from the shared list.
    public init(_ code: ErrorCode, message: String, details: [String: JSONValue] = [:]) {
        self.init(code: code.rawValue, message: message, details: details, status: nil)
    }

    /// A failure with no answer from the server.
    public init(_ code: ClientErrorCode, message: String, details: [String: JSONValue] = [:], status: Int? = nil) {
        self.init(code: code.rawValue, message: message, details: details, status: status)
    }

    /// A request that got no answer, with what the transport said.
    static func networkUnavailable(_ underlying: any Error) -> RollcallError {
        RollcallError(
            .networkUnavailable, message: "Rollcall could not be reached: check the network connection and try again.",
            details: ["reason": .string(String(describing: underlying))])
    }

    /// An answer this client cannot read: a server of another version, or something else at that address.
    static func unexpectedAnswer(status: Int?, _ what: String) -> RollcallError {
        RollcallError(
            .unexpectedAnswer,
            message: "The server gave an answer this version of Rollcall does not understand (\(what)).", status: status
        )
    }

    /// Reads the server's error body, `{"error": {"code", "message", "details", "rows"}}`.
    init(status: Int, body: Data, retryAfter: Int?) {
        struct Envelope: Decodable {
            struct Body: Decodable {
                var code: String
                var message: String
                var details: [String: JSONValue]?
                var rows: [RowError]?
            }
            var error: Body
        }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: body) {
            self.init(
                code: envelope.error.code, message: envelope.error.message, details: envelope.error.details ?? [:],
                status: status, rows: envelope.error.rows ?? [], retryAfter: retryAfter
            )
        } else {
            self = .unexpectedAnswer(status: status, "HTTP \(status) without Rollcall's error body")
            self.retryAfter = retryAfter
        }
    }
}

/// A JSON value of a loosely typed field, such as an error's details or a live event's data.
public enum JSONValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONValue])
    case array([JSONValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public var description: String {
        switch self {
        case .string(let value): value
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): String(value)
        case .null: "null"
        case .object, .array:
            (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? ""
        }
    }

    /// The text of a string value.
    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The value of a number.
    public var number: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    /// A whole number, such as an id.
    public var int: Int64? { number.map { Int64($0) } }

    /// A field of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let value) = self { value[key] } else { nil }
    }
}
