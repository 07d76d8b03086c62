import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallWords

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
        /// Minutes shared in sessions, from attendance.
        var totalMinutes: Int
        var sessions: Int
        /// Minutes the two phones heard each other.
        var proximityMinutes: Int
        /// What the contact rests on: `attendance`, `proximity`, or both.
        var evidence: [Exposure.Evidence]
    }

    /// A contact from the phones: when first and last heard, and for how many minutes.
    struct PhoneEntry: Codable, Sendable {
        var personId: Int64
        var name: String
        var minutes: Int
        var firstSeen: Date
        var lastSeen: Date
    }

    /// The health officer's request that the person upload their phone's encounters, and whether they have.
    struct PhoneRequest: Codable, Sendable {
        var requestedAt: Date
        var answeredAt: Date?
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
    /// Contacts from the phones' own evidence, most minutes first.
    var phones: [PhoneEntry]
    var phoneRequest: PhoneRequest?

    /// How every report is computed, shown with it, in the reader's language.
    static func method(in reader: Reader) -> String {
        reader.say(
            "Made from attendance records only: a session counts when the person checked in (QR code, typed code, check-in spot or app) or a teacher marked them present or late, and it opened within the window. Everyone else recorded the same way in that session is a contact. Shared minutes run from the later of the two check-ins (the session's opening for a mark by hand) to the session's end (its closing, or when it stopped taking check-ins), rounded down. People who did not check in and were not marked present or late are not in this report, even if they were in the room; absences and excused records are not used. Phones with the Rollcall app and proximity on add their own evidence: the rotating pseudo-IDs each phone heard nearby, as uploaded by the phone's owner. A phone contact's minutes are those in which either phone heard the other (each sighting counts at least one minute), within the window. Contacts are ranked by the larger of the two kinds of minutes; each names the evidence it rests on."
        )
    }

    init(
        entry: ExposureAuditEntry, facts: [ExposureSessionFacts],
        phones: (sightings: [Proximity.Sighting], names: [Int64: String]), request: ProximityRequest?,
        in reader: Reader
    ) {
        let byID = Dictionary(facts.map { ($0.session.id, $0) }, uniquingKeysWith: { $1 })
        let encounters = Exposure.encounters(of: entry.personId, in: facts.map(\.session))
        id = entry.id
        person = Person(id: entry.personId, name: entry.personName)
        requestedBy = Person(id: entry.requestedBy, name: entry.requestedByName)
        reason = entry.reason
        from = entry.windowFrom
        until = entry.windowUntil
        createdAt = entry.createdAt
        method = Self.method(in: reader)
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
        let nearby = Proximity.contacts(of: entry.personId, in: phones.sightings)
        let name = { (id: Int64) in phones.names[id] ?? reader.say("Person \(id)") }
        self.phones = nearby.map {
            PhoneEntry(
                personId: $0.personID, name: name($0.personID), minutes: $0.minutes, firstSeen: $0.firstSeen,
                lastSeen: $0.lastSeen)
        }
        phoneRequest = request.map { PhoneRequest(requestedAt: $0.createdAt, answeredAt: $0.answeredAt) }
        contacts = Exposure.ranking(encounters, proximity: nearby.map { ($0, name($0.personID)) }).map {
            RankedEntry(
                personId: $0.personID, name: $0.name, totalMinutes: $0.totalMinutes, sessions: $0.sessions,
                proximityMinutes: $0.proximityMinutes, evidence: $0.evidence)
        }
    }

    /// One line per contact in each session, after a line per ranked contact. Times are local to `zone` (the health
    /// officer's, as on the report's page), without an offset, so that a spreadsheet reads them as times; the header
    /// names the zone.
    func csv(zone: TimeZone, in reader: Reader) -> String {
        var text = CSV.line([
            reader.say("Contact"), reader.say("Total shared minutes"), reader.say("Sessions"),
            reader.say("Minutes near by phone"), reader.say("Evidence"),
        ])
        for contact in contacts {
            text += CSV.line([
                contact.name, String(contact.totalMinutes), String(contact.sessions), String(contact.proximityMinutes),
                Self.both(
                    contact.evidence.map { $0 == .attendance ? reader.say("attendance") : reader.say("proximity") },
                    in: reader),
            ])
        }
        text += "\r\n"
        text += CSV.line([
            reader.say("Course"), reader.say("Session"), reader.say("Room"),
            reader.say("Opened at (\(zone.identifier))"),
            reader.say("Ended at (\(zone.identifier))"), reader.say("Contact"), reader.say("Shared minutes"),
        ])
        for session in sessions {
            for contact in session.contacts {
                text += CSV.line([
                    session.course, session.title, session.room ?? "—",
                    CourseTimeZone.timestamp(session.openedAt, in: zone),
                    CourseTimeZone.timestamp(session.endedAt, in: zone), contact.name, String(contact.minutes),
                ])
            }
        }
        return text
    }

    /// Kinds of evidence in a list: “attendance and proximity”.
    static func both(_ words: [String], in reader: Reader) -> String {
        words.count == 2 ? reader.say("\(words[0]) and \(words[1])") : words.joined(separator: ", ")
    }
}
