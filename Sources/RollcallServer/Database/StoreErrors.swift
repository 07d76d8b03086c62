import RollcallCore
import RollcallProtocol

/// The database does not answer: the server is stopping, or its connections are gone.
struct DatabaseUnavailable: Error {}

/// A write the database took without answering with what it wrote; `what` names it for the log.
struct NotSaved: Error {
    var what: String
}

/// A stored row Rollcall cannot read, such as an account with a role it does not know.
struct UnreadableRow: Error {
    var what: String
}

/// Something a change needs is not stored (any more); `what` is its name in the error code, such as `session`.
struct NotStored: Error {
    /// The code of the 404 it becomes.
    var code: ErrorCode
    var what: Phrase

    init(_ code: ErrorCode, what: Phrase) {
        self.code = code
        self.what = what
    }
}

/// A limit refused an attempt: try again after `retryAfter` seconds.
struct TooManyAttempts: Error {
    var retryAfter: Int
    /// The sentence for the person, saying what was limited.
    var message: Phrase
}

/// The SQLite file the server opened was deleted or replaced under it: what it would write now would be lost.
struct DatabaseFileGone: Error {}

/// The disk holding the database is full (SQLITE_FULL): nothing more can be written until space is freed.
struct StorageFull: Error {}
