import Foundation
import RollcallCore
import RollcallWords

/// Reasons Rollcall writes itself beside a teacher's, kept as phrases (`Phrase.storedText`) and said in each
/// reader's language: the audit log, the session's CSV and the live room say them in French to a French teacher.
package enum RecordWords {
    /// An undone change: when it was made, in `zone`, and the status it set.
    package static func undone(_ batch: AttendanceBatch, zone: TimeZone) -> Phrase {
        Phrase(
            key: "Undone: the change of {0} to {1}.",
            values: [.moment(batch.createdAt, zone: zone.identifier), .phrase(batch.status.pagePhrase)])
    }

    /// The reason of an absence written by closing a session.
    package static var absentOnClose: Phrase { "Not checked in when the session closed." }
}

extension AttendanceStatus {
    /// The status in words, on a page, in a letter or in a spreadsheet cell: “present”. The API sends `rawValue`.
    package func pageText(in reader: Reader) -> String { reader.say(pagePhrase) }

    /// The same as a phrase, for a sentence that names a status and is stored to be said when read.
    package var pagePhrase: Phrase {
        switch self {
        case .present: "present"
        case .late: "late"
        case .excused: "excused"
        case .absent: "absent"
        }
    }

    /// The status as the label of a choice: “Present”.
    package func pageLabel(in reader: Reader) -> String {
        switch self {
        case .present: reader.say("Present")
        case .late: reader.say("Late")
        case .excused: reader.say("Excused")
        case .absent: reader.say("Absent")
        }
    }
}
