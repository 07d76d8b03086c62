import Foundation
import RollcallProtocol

/// Contact tracing from attendance: who shared a session with a person, for how long, and the ranking of contacts.
///
/// Only records that say a person was in the room count: check-ins (QR, typed code, spot, API) and a teacher's
/// "present" or "late" mark. Someone who did not check in and was not marked is not in any report.
public enum Exposure {
    /// Days back from the report's end date when none is asked for.
    public static let defaultDays = 14

    /// One person's presence in a session, as the attendance record says.
    public struct Presence: Equatable, Sendable {
        public var personID: Int64
        public var name: String
        /// When the person checked in; `nil` for a mark by hand, which does not say when they arrived.
        public var checkedInAt: Date?

        public init(personID: Int64, name: String, checkedInAt: Date?) {
            self.personID = personID
            self.name = name
            self.checkedInAt = checkedInAt
        }
    }

    /// A session held: when it opened, when it ended, and who was recorded present or late.
    public struct Session: Equatable, Sendable {
        public var id: Int64
        public var openedAt: Date
        /// When it closed, or when it stopped taking check-ins, whichever came first.
        public var endedAt: Date
        public var present: [Presence]

        public init(id: Int64, openedAt: Date, endedAt: Date, present: [Presence]) {
            self.id = id
            self.openedAt = openedAt
            self.endedAt = endedAt
            self.present = present
        }
    }

    /// When a person counts as in the room: from their check-in, or from the opening for a mark by hand (the
    /// teacher says they were there, not since when, so the report assumes the whole session), never before the
    /// opening nor after the end.
    public static func arrival(_ presence: Presence, in session: Session) -> Date {
        let arrived = presence.checkedInAt ?? session.openedAt
        return min(max(arrived, session.openedAt), max(session.endedAt, session.openedAt))
    }

    /// Whole minutes two people shared in a session: from the later arrival to the session's end, rounded down.
    public static func sharedMinutes(_ first: Presence, _ second: Presence, in session: Session) -> Int {
        let from = max(arrival(first, in: session), arrival(second, in: session))
        let seconds = session.endedAt.timeIntervalSince(from)
        return seconds > 0 ? Int((seconds / 60).rounded(.down)) : 0
    }

    /// Someone else in one of the person's sessions, and the minutes they shared.
    public struct Contact: Equatable, Sendable {
        public var personID: Int64
        public var name: String
        public var minutes: Int

        public init(personID: Int64, name: String, minutes: Int) {
            self.personID = personID
            self.name = name
            self.minutes = minutes
        }
    }

    /// A session the person attended, with everyone else recorded in it.
    public struct Encounter: Equatable, Sendable {
        public var sessionID: Int64
        public var contacts: [Contact]

        public init(sessionID: Int64, contacts: [Contact]) {
            self.sessionID = sessionID
            self.contacts = contacts
        }
    }

    /// The sessions `personID` attended, oldest first, each with everyone else present, most shared minutes first.
    /// Sessions the person is not recorded in are left out.
    public static func encounters(of personID: Int64, in sessions: [Session]) -> [Encounter] {
        sessions.sorted { ($0.openedAt, $0.id) < ($1.openedAt, $1.id) }.compactMap { session in
            guard let own = session.present.first(where: { $0.personID == personID }) else { return nil }
            var seen: Set<Int64> = [personID]
            let contacts = session.present.compactMap { other -> Contact? in
                guard seen.insert(other.personID).inserted else { return nil }
                return Contact(
                    personID: other.personID, name: other.name, minutes: sharedMinutes(own, other, in: session))
            }
            return Encounter(sessionID: session.id, contacts: contacts.sorted(by: Self.ranked))
        }
    }

    /// What a contact rests on: shared sessions in the attendance records, the phones' own sightings, or both.
    public enum Evidence: String, Codable, Sendable, CaseIterable {
        case attendance
        case proximity
    }

    /// One contact over the whole window.
    public struct RankedContact: Equatable, Sendable {
        public var personID: Int64
        public var name: String
        /// Minutes shared in sessions, from attendance.
        public var totalMinutes: Int
        public var sessions: Int
        /// Minutes the two phones heard each other.
        public var proximityMinutes: Int

        public init(personID: Int64, name: String, totalMinutes: Int, sessions: Int, proximityMinutes: Int = 0) {
            self.personID = personID
            self.name = name
            self.totalMinutes = totalMinutes
            self.sessions = sessions
            self.proximityMinutes = proximityMinutes
        }

        /// The evidence this contact rests on, attendance first.
        public var evidence: [Evidence] {
            (sessions > 0 ? [.attendance] : []) + (proximityMinutes > 0 ? [.proximity] : [])
        }
    }

    /// Every contact once, from the shared sessions and from the phones (`proximity`, each with the person's name),
    /// ranked by the larger of the two minutes, then number of sessions, then name, then id.
    public static func ranking(
        _ encounters: [Encounter], proximity: [(contact: Proximity.Contact, name: String)] = []
    ) -> [RankedContact] {
        var byID: [Int64: RankedContact] = [:]
        for (contact, name) in proximity {
            byID[contact.personID] = RankedContact(
                personID: contact.personID, name: name, totalMinutes: 0, sessions: 0,
                proximityMinutes: contact.minutes)
        }
        for encounter in encounters {
            for contact in encounter.contacts {
                byID[
                    contact.personID,
                    default: RankedContact(
                        personID: contact.personID, name: contact.name, totalMinutes: 0, sessions: 0)
                ]
                .totalMinutes += contact.minutes
                byID[contact.personID]!.sessions += 1
            }
        }
        return byID.values.sorted { a, b in
            let (first, second) = (max(a.totalMinutes, a.proximityMinutes), max(b.totalMinutes, b.proximityMinutes))
            if first != second { return first > second }
            if a.totalMinutes != b.totalMinutes { return a.totalMinutes > b.totalMinutes }
            if a.sessions != b.sessions { return a.sessions > b.sessions }
            if a.name != b.name { return Collation.english.precedes(a.name, b.name) }
            return a.personID < b.personID
        }
    }

    private static func ranked(_ a: Contact, _ b: Contact) -> Bool {
        if a.minutes != b.minutes { return a.minutes > b.minutes }
        if a.name != b.name { return Collation.english.precedes(a.name, b.name) }
        return a.personID < b.personID
    }
}

/// The days a report covers: `days` back from `until`, never reaching past what retention still keeps.
public struct ExposureWindow: Equatable, Sendable {
    public var from: Date
    public var until: Date
    public var days: Int

    /// Why a window cannot be reported on.
    public enum Refusal: Error, Equatable, Sendable {
        /// `days` is not between 1 and the retention period.
        case days(maximum: Int)
        /// `until` is later than now.
        case future
        /// The window starts before the oldest day still kept.
        case beyondRetention(days: Int)

        public var code: ErrorCode {
            switch self {
            case .days: .invalidDays
            case .future: .invalidUntil
            case .beyondRetention: .windowBeyondRetention
            }
        }

        public var message: Phrase {
            switch self {
            case .days(let maximum): "A report covers 1 to \(maximum) days."
            case .future: "The report's end date cannot be in the future."
            case .beyondRetention(let days):
                "Rollcall keeps what a report needs for \(days) days only; choose a window within the last \(days) days."
            }
        }
    }

    /// The window of `days` (default 14) back from `until` (default now), checked against `retentionDays`.
    public static func make(until: Date?, days: Int?, retentionDays: Int, now: Date) throws(Refusal) -> ExposureWindow {
        let days = days ?? min(Exposure.defaultDays, retentionDays)
        guard (1...max(1, retentionDays)).contains(days) else { throw .days(maximum: retentionDays) }
        let until = until ?? now
        guard until <= now else { throw .future }
        let from = until.addingTimeInterval(-Double(days) * 86_400)
        guard from >= now.addingTimeInterval(-Double(retentionDays) * 86_400) else {
            throw .beyondRetention(days: retentionDays)
        }
        return ExposureWindow(from: from, until: until, days: days)
    }
}
