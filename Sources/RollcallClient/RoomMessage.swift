import Foundation
import RollcallProtocol

/// One message of a session's live room, in the order the server sent it.
public enum RoomMessage: Sendable, Equatable, Encodable {
    /// The room as it is: sent first on a fresh connection, never after a resume.
    case snapshot(RoomSnapshot)
    /// A change that committed: a check-in, a status changed by hand, a flag, the session opening or closing.
    case event(RoomEvent)
    /// The counts after a run of events.
    case counts(LiveCountsUpdate)

    /// Writes the message as the server sent it, with its `type`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        switch self {
        case .snapshot(let snapshot):
            try container.encode("snapshot", forKey: .type)
            try snapshot.encode(to: encoder)
        case .event(let event):
            try container.encode("event", forKey: .type)
            try event.encode(to: encoder)
        case .counts(let counts):
            try container.encode("counts", forKey: .type)
            try counts.encode(to: encoder)
        }
    }

    private enum TypeKey: String, CodingKey {
        case type
    }

    /// Reads one WebSocket text message; `nil` for a type this client does not know (newer servers may add some).
    static func decode(_ text: String) throws -> RoomMessage? {
        let data = Data(text.utf8)
        struct Kind: Decodable { var type: String }
        switch try LiveJSON.decoder.decode(Kind.self, from: data).type {
        case "snapshot": return .snapshot(try LiveJSON.decoder.decode(RoomSnapshot.self, from: data))
        case "event": return .event(try LiveJSON.decoder.decode(RoomEvent.self, from: data))
        case "counts": return .counts(try LiveJSON.decoder.decode(LiveCountsUpdate.self, from: data))
        default: return nil
        }
    }
}

/// The room when a live view connects: the session, every enrolled student and the counts.
public struct RoomSnapshot: Sendable, Equatable, Codable {
    /// The session as the room shows it.
    public struct SessionInfo: Sendable, Equatable, Codable {
        public var id: Int64
        public var title: String
        /// `scheduled`, `open` or `closed`.
        public var phase: String
        public var closesAt: Date?
        public var closedAt: Date?
    }

    /// An enrolled student and, once recorded, their status.
    public struct Student: Sendable, Equatable, Codable {
        public var id: Int64
        public var name: String
        public var studentNumber: String?
        /// `present`, `late`, `excused` or `absent`; `nil` while nothing is recorded.
        public var status: String?
        public var at: Date?
        /// How the record came to be, such as `qr` or `manual`.
        public var via: String?
        /// How many classmates' phones heard this student's, in a session that counts them.
        public var heardBy: Int?
    }

    public var session: SessionInfo
    /// The last event this picture includes; events after it follow.
    public var lastEventId: Int64
    public var counts: LiveCounts
    public var students: [Student]
    public var flags: [JSONValue]
}

/// A change to the room, numbered in commit order; each is delivered once.
public struct RoomEvent: Sendable, Equatable, Codable {
    public var id: Int64
    /// `checked_in`, `status_changed`, `flagged`, `session_opened` or `session_closed`; clients ignore others.
    public var kind: String
    public var createdAt: Date
    public var data: JSONValue

    /// The kind as the shared list names it; `nil` for a kind a newer server added.
    public var eventKind: SessionEventKind? { SessionEventKind(rawValue: kind) }

    /// The student the event is about, for check-ins, status changes and flags.
    public var studentID: Int64? { data["studentId"]?.int }
    /// The student's status after the event, for check-ins and status changes.
    public var status: String? { data["status"]?.string }
}

/// The room's counts as of an event.
public struct LiveCountsUpdate: Sendable, Equatable, Codable {
    public var lastEventId: Int64
    public var counts: LiveCounts
}

/// How many enrolled students stand where; `checkedIn` is present plus late.
public struct LiveCounts: Sendable, Equatable, Codable {
    public var enrolled: Int
    public var present: Int
    public var late: Int
    public var excused: Int
    public var absent: Int
    public var notYet: Int
    public var checkedIn: Int
}

/// Reading the live channels' JSON: dates with or without milliseconds, as the API allows both.
enum LiveJSON {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not an ISO-8601 date: \(text)"))
            }
            return date
        }
        return decoder
    }()

    static func parseDate(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }()
}
