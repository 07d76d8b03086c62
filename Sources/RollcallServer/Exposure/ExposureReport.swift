import Foundation
import Hummingbird
import RollcallCore

/// An exposure report as the health officer receives it: the sessions the person attended in person with everyone
/// else recorded in each, the ranked contacts, and how it was computed.
struct ExposureReport: Codable, ResponseEncodable, Sendable {
    struct Person: Codable, Sendable {
        var id: Int64
        var name: String
    }
    struct SessionEntry: Codable, Sendable {
        var sessionId: Int64
        var course: String
        var title: String
        /// The session's room label; left out when the teacher gave none. Never coordinates.
        var room: String?
        var openedAt: Date
        var endedAt: Date
        /// When the person checked in; left out for a mark by hand, which counts from the opening.
        var checkedInAt: Date?
        var contacts: [ContactEntry]
    }
    struct ContactEntry: Codable, Sendable {
        var personId: Int64
        var name: String
        var minutes: Int
    }
    struct RankedEntry: Codable, Sendable {
        var personId: Int64
        var name: String
        var totalMinutes: Int
        var sessions: Int
    }

    var id: Int64
    var person: Person
    var requestedBy: Person
    var reason: String
    var from: Date
    var until: Date
    var createdAt: Date
    var method: String
    var sessions: [SessionEntry]
    var contacts: [RankedEntry]

    /// How every report is computed, shown with it.
    static let method =
        "Made from attendance records only: a session counts when the person checked in (QR code, typed code, "
        + "check-in spot or app) or a teacher marked them present or late, and it opened within the window. "
        + "Everyone else recorded the same way in that session is a contact. Shared minutes run from the later of "
        + "the two check-ins (the session's opening for a mark by hand) to the session's end (its closing, or when "
        + "it stopped taking check-ins), rounded down. People who did not check in and were not marked present "
        + "or late are not in this report, even if they were in the room; absences and excused records are not used."

    init(entry: ExposureAuditEntry, facts: [ExposureSessionFacts]) {
        let byID = Dictionary(facts.map { ($0.session.id, $0) }, uniquingKeysWith: { $1 })
        let encounters = Exposure.encounters(of: entry.personId, in: facts.map(\.session))
        id = entry.id
        person = Person(id: entry.personId, name: entry.personName)
        requestedBy = Person(id: entry.requestedBy, name: entry.requestedByName)
        reason = entry.reason
        from = entry.windowFrom
        until = entry.windowUntil
        createdAt = entry.createdAt
        method = Self.method
        sessions = encounters.compactMap { encounter in
            guard let fact = byID[encounter.sessionID] else { return nil }
            return SessionEntry(
                sessionId: encounter.sessionID, course: fact.courseName, title: fact.title, room: fact.room,
                openedAt: fact.session.openedAt, endedAt: fact.session.endedAt,
                checkedInAt: fact.session.present.first { $0.personID == entry.personId }?.checkedInAt,
                contacts: encounter.contacts.map {
                    ContactEntry(personId: $0.personID, name: $0.name, minutes: $0.minutes)
                })
        }
        contacts = Exposure.ranking(encounters).map {
            RankedEntry(personId: $0.personID, name: $0.name, totalMinutes: $0.totalMinutes, sessions: $0.sessions)
        }
    }

    /// One line per contact in each session, after a line per ranked contact.
    var csv: String {
        var text = CSV.line(["Contact", "Total shared minutes", "Sessions"])
        for contact in contacts {
            text += CSV.line([contact.name, String(contact.totalMinutes), String(contact.sessions)])
        }
        text += "\r\n"
        text += CSV.line(["Course", "Session", "Room", "Opened at", "Ended at", "Contact", "Shared minutes"])
        for session in sessions {
            for contact in session.contacts {
                text += CSV.line([
                    session.course, session.title, session.room ?? "—", session.openedAt.csvText,
                    session.endedAt.csvText, contact.name, String(contact.minutes),
                ])
            }
        }
        return text
    }
}

extension Date {
    /// A date and time as a spreadsheet reads it, in UTC.
    var csvText: String { formatted(.iso8601) }
}
