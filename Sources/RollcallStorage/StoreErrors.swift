import RollcallCore
import RollcallProtocol

/// The database does not answer: the server is stopping, or its connections are gone.
package struct DatabaseUnavailable: Error {
    package init() {}
}

/// A write the database took without answering with what it wrote; `what` names it for the log.
package struct NotSaved: Error {
    package var what: String

    package init(what: String) {
        self.what = what
    }
}

/// A stored row Rollcall cannot read, such as an account with a role it does not know.
package struct UnreadableRow: Error {
    package var what: String

    package init(what: String) {
        self.what = what
    }
}

/// Something a change needs is not stored (any more); `what` is its name in the error code, such as `session`.
package struct NotStored: Error {
    /// The code of the 404 it becomes.
    package var code: ErrorCode
    package var what: Phrase

    package init(_ code: ErrorCode, what: Phrase) {
        self.code = code
        self.what = what
    }
}

/// A limit refused an attempt: try again after `retryAfter` seconds.
package struct TooManyAttempts: Error {
    package var retryAfter: Int
    /// The sentence for the person, saying what was limited.
    package var message: Phrase

    package init(retryAfter: Int, message: Phrase) {
        self.retryAfter = retryAfter
        self.message = message
    }
}

/// The SQLite file the server opened was deleted or replaced under it: what it would write now would be lost.
package struct DatabaseFileGone: Error {}

/// The disk holding the database is full (SQLITE_FULL): nothing more can be written until space is freed.
package struct StorageFull: Error {}
