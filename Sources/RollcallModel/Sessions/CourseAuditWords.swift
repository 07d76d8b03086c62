import Foundation
import RollcallCore

/// The details of a line of a course's audit, kept as a phrase (`Phrase.storedText`) and said in each reader's
/// language: a colleague in Berlin reads in German what a teacher in Lyon deleted.
package enum CourseAuditWords {
    /// A session deleted or cancelled, with what went with it; an opened one names when it opened, in `zone`.
    package static func removed(_ session: ClassSession, contents: SessionContents, zone: TimeZone) -> Phrase {
        let title = session.titlePhrase
        guard let opened = session.openedAt else {
            return "“\(title)” (scheduled, never opened) with \(contents.phrase)"
        }
        return Phrase(
            key: "“{0}” (opened {1}) with {2}",
            values: [.phrase(title), .moment(opened, zone: zone.identifier), .phrase(contents.phrase)])
    }

    /// A member of staff removed, with the role they had.
    package static func staffRemoved(name: String, role: StaffRole) -> Phrase {
        switch role {
        case .teacher: "\(name) (teacher)"
        case .assistant: "\(name) (assistant)"
        }
    }

    /// A line's stored details: a phrase, or the English Rollcall stored before it kept phrases, read back into its
    /// phrase where it can be (a member of staff removed), else said as it is.
    package static func reading(_ stored: String) -> Phrase {
        Phrase.stored(stored) { text in
            guard let found = text.wholeMatch(of: /(.+) \((teacher|assistant)\)/),
                let role = StaffRole(rawValue: String(found.2))
            else { return nil }
            return staffRemoved(name: String(found.1), role: role)
        }
    }
}

extension ClassSession {
    /// The title as a phrase: a default one is said from its moment in each reader's language, a typed one as typed.
    package var titlePhrase: Phrase {
        guard let defaultTitle else { return .verbatim(storedTitle) }
        return Phrase(key: "Session of {0}", values: [.moment(defaultTitle.moment, zone: defaultTitle.zone)])
    }
}
