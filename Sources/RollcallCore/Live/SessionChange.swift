import Foundation

/// The stable names of a session's events, which live clients switch on.
public enum SessionEventKind: String, Codable, CaseIterable, Sendable {
    case checkedIn = "checked_in"
    case statusChanged = "status_changed"
    case flagged
    case sessionOpened = "session_opened"
    case sessionClosed = "session_closed"
}

/// Something that happened in a session, as the teacher's live view is told of it.
public enum SessionChange: Sendable, Equatable {
    /// A student checked in (QR, typed code, spot or API): a new attendance record.
    case checkedIn(CheckedIn)
    /// A teacher set a student's status by hand, or closing the session marked them absent.
    case statusChanged(StatusChanged)
    /// Something for the teacher to look at, such as one phone used by two students.
    case flagged(Flagged)
    /// The session opened or closed.
    case phaseChanged(PhaseChanged)

    /// A new check-in.
    public struct CheckedIn: Codable, Sendable, Equatable {
        public var studentId: Int64
        public var status: AttendanceStatus
        /// When the check-in was decided, by the server's clock.
        public var at: Date
        public var via: RecordSource

        public init(studentId: Int64, status: AttendanceStatus, at: Date, via: RecordSource) {
            self.studentId = studentId
            self.status = status
            self.at = at
            self.via = via
        }
    }

    /// A status set by hand.
    public struct StatusChanged: Codable, Sendable, Equatable {
        public var studentId: Int64
        /// `nil` when the student had no record yet.
        public var previous: AttendanceStatus?
        /// `nil` when the record was removed, so the student is "not yet" again.
        public var status: AttendanceStatus?
        public var reason: String?
        /// The teacher (or admin) who made the change.
        public var changedBy: Int64
        public var at: Date

        public init(
            studentId: Int64, previous: AttendanceStatus?, status: AttendanceStatus?, reason: String?,
            changedBy: Int64, at: Date
        ) {
            self.studentId = studentId
            self.previous = previous
            self.status = status
            self.reason = reason
            self.changedBy = changedBy
            self.at = at
        }
    }

    /// A flag raised for the teacher.
    public struct Flagged: Codable, Sendable, Equatable {
        public var flagId: Int64?
        public var studentId: Int64?
        public var kind: FlagKind
        public var detail: String

        public init(flagId: Int64?, studentId: Int64?, kind: FlagKind, detail: String) {
            self.flagId = flagId
            self.studentId = studentId
            self.kind = kind
            self.detail = detail
        }
    }

    /// The session's new phase.
    public struct PhaseChanged: Codable, Sendable, Equatable {
        public var phase: SessionPhase

        public init(phase: SessionPhase) {
            self.phase = phase
        }
    }

    public var kind: SessionEventKind {
        switch self {
        case .checkedIn: .checkedIn
        case .statusChanged: .statusChanged
        case .flagged: .flagged
        case .phaseChanged(let change): change.phase == .closed ? .sessionClosed : .sessionOpened
        }
    }

    /// The details as JSON text, as stored and as sent in an event's `data`.
    public func payload() throws -> String {
        let encoder = Self.encoder
        let data: Data
        switch self {
        case .checkedIn(let change): data = try encoder.encode(change)
        case .statusChanged(let change): data = try encoder.encode(change)
        case .flagged(let change): data = try encoder.encode(change)
        case .phaseChanged(let change): data = try encoder.encode(change)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Dates with milliseconds and sorted keys: a live view measures and orders by them.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.millisecondText)
        }
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

extension Date {
    /// ISO 8601 with milliseconds, in UTC: `2026-09-01T09:00:00.123Z`.
    public var millisecondText: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
