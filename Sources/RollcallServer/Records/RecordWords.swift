import Foundation
import RollcallCore

/// Reasons Rollcall writes itself beside a teacher's, kept as phrases (`Phrase.storedText`) and said in each
/// reader's language: the audit log, the session's CSV and the live room say them in French to a French teacher.
enum RecordWords {
    /// An undone change: when it was made, in `zone`, and the status it set.
    static func undone(_ batch: AttendanceBatch, zone: TimeZone) -> Phrase {
        Phrase(
            key: "Undone: the change of {0} to {1}.",
            values: [.moment(batch.createdAt, zone: zone.identifier), .phrase(batch.status.pagePhrase)])
    }

    /// The reason of an absence written by closing a session.
    static var absentOnClose: Phrase { "Not checked in when the session closed." }
}
