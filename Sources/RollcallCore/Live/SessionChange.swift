import Foundation
import RollcallProtocol

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
    /// A student's phone, checking in, heard the phones of these classmates (a session that asks for it).
    case heard(Heard)

    /// Classmates heard by one student's phone.
    public struct Heard: Codable, Sendable, Equatable {
        /// The students whose phones were heard, each now heard by one more classmate.
        public var studentIds: [Int64]
        /// The student whose phone heard them.
        public var heardBy: Int64

        public init(studentIds: [Int64], heardBy: Int64) {
            self.studentIds = studentIds
            self.heardBy = heardBy
        }
    }

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
        /// The teacher's own note; the live views that carry it are the teacher's.
        public var note: String?
        /// The teacher (or admin) who made the change.
        public var changedBy: Int64
        public var at: Date

        public init(
            studentId: Int64, previous: AttendanceStatus?, status: AttendanceStatus?, reason: String?,
            note: String? = nil, changedBy: Int64, at: Date
        ) {
            self.note = note
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
        /// The second student the flag names, such as the owner of a phone another tried to check in from.
        public var otherStudentId: Int64?
        public var kind: FlagKind
        public var detail: String

        public init(flagId: Int64?, studentId: Int64?, otherStudentId: Int64? = nil, kind: FlagKind, detail: String) {
            self.flagId = flagId
            self.studentId = studentId
            self.otherStudentId = otherStudentId
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
        case .heard: .heard
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
        case .heard(let change): data = try encoder.encode(change)
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
    ///
    /// Written digit by digit: every check-in's answer and live event carries one, and the format style costs
    /// several microseconds a date. The milliseconds are cut, not rounded, as `ISO8601FormatStyle` does, from the
    /// date taken to the nearest microsecond.
    public var millisecondText: String {
        // From the reference date, as `Date` keeps it: whole seconds, then the fraction to the microsecond, cut to
        // milliseconds. PostgreSQL keeps microseconds, and gives `.712` back as `.71199999…`: cut from there, half
        // of the times a client sent with milliseconds would be answered a millisecond early.
        let sinceReference = timeIntervalSinceReferenceDate
        guard abs(sinceReference) < 1e15 else {
            return formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let seconds = sinceReference.rounded(.down)
        let microseconds = Int64(((sinceReference - seconds) * 1_000_000).rounded())
        let milliseconds = (Int64(seconds) + 978_307_200) * 1000 + microseconds / 1000
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        // Days to a civil date (Howard Hinnant's algorithm), from 1970-01-01.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else {
            return formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        var text = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int64, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(inDay / 3_600_000, at: 11, digits: 2)
        put(inDay / 60_000 % 60, at: 14, digits: 2)
        put(inDay / 1000 % 60, at: 17, digits: 2)
        put(inDay % 1000, at: 20, digits: 3)
        for (offset, character) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] {
            text[offset] = UInt8(ascii: Unicode.Scalar(character)!)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
