import RollcallCore
import RollcallWords

/// What a session holds that deleting it takes along: attendance records and quiz attempts (graded work).
package struct SessionContents: Sendable, Equatable {
    package var records: Int
    package var attempts: Int

    package init(records: Int, attempts: Int) {
        self.records = records
        self.attempts = attempts
    }

    /// Whether a request that names `confirmed` may delete this: each kind the session holds is named exactly.
    package func confirmed(by confirmed: SessionContents) -> Bool {
        (records == 0 || confirmed.records == records) && (attempts == 0 || confirmed.attempts == attempts)
    }

    /// “2 attendance records and 1 quiz attempt”, in the reader's language.
    package func text(in reader: Reader) -> String { reader.say(phrase) }

    /// The same as a phrase, which the course's audit log stores to say it in each reader's language.
    package var phrase: Phrase {
        let recordsPhrase = Phrase.counting(records, one: "{0} attendance record", other: "{0} attendance records")
        let attemptsPhrase = Phrase.counting(attempts, one: "{0} quiz attempt", other: "{0} quiz attempts")
        switch (records > 0 || attempts == 0, attempts > 0) {
        case (true, true): return "\(recordsPhrase) and \(attemptsPhrase)"
        case (false, true): return attemptsPhrase
        default: return recordsPhrase
        }
    }
}

/// Why a correction of a session is refused.
package enum SessionCorrectionRefusal: Error, Equatable {
    /// Editing or extending a session that has closed: reopen it first.
    case closed
    /// Reopening or extending a session that has not opened.
    case notOpened
    /// Reopening a session that is open.
    case stillOpen
    /// Moving the start of a session that has opened.
    case alreadyOpened
    /// Deleting a session with records or quiz attempts, without saying how many of each go with it.
    case unconfirmedDelete(SessionContents)
}
