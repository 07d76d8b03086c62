import Hummingbird
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWords

extension AppError {
    /// The answer for an error thrown below the routes (stores, the database, the check-in's group commit): the one
    /// place where a domain error becomes an HTTP status, a stable code and a sentence.
    package init?(domain error: any Error) {
        switch error {
        case let error as AccountConflict:
            switch error {
            case .emailTaken:
                self = .conflict(.emailTaken, "An account with this email address already exists. Sign in instead.")
            case .studentNumberTaken(let number):
                self = .conflict(.studentNumberTaken, "Student number \(number) already belongs to another account.")
            }
        case is PasskeyAlreadyRegistered:
            self = .conflict(.passkeyAlreadyRegistered, "This passkey is already registered with Rollcall.")
        case let error as SessionTransitionRefusal:
            switch error {
            case .alreadyOpen: self = .conflict(.sessionAlreadyOpen, "This session is already open.")
            case .closedForGood:
                self = .conflict(.sessionClosed, "This session has closed; create a new session instead.")
            case .alreadyClosed: self = .conflict(.sessionClosed, "This session is already closed.")
            }
        case let refusal as SessionCorrectionRefusal: self = Self.correction(refusal)
        case let refusal as CheckInRefusal:
            var details: [String: Detail] = [:]
            if let distance = refusal.distance { details["distanceMeters"] = .number(distance.rounded()) }
            if let radius = refusal.radius { details["radiusMeters"] = .number(radius.rounded()) }
            if let step = refusal.step { details["step"] = .text(step) }
            if let joinable = refusal.joinable { details["joinable"] = .flag(joinable) }
            self = AppError(
                Self.status(for: refusal.error), refusal.code, refusal.message,
                details: details.isEmpty ? nil : details)
        case let refusal as QuizRefusal: self = Self.quiz(refusal)
        case let error as NotStored: self = .notFound(error.code, error.what)
        case let error as TooManyAttempts:
            self = AppError(.tooManyRequests, .tooManyAttempts, error.message, retryAfter: error.retryAfter)
        case is DatabaseUnavailable: self = .databaseUnavailable
        case is DatabaseFileGone:
            self = AppError(
                .serviceUnavailable, .databaseUnavailable,
                "The database file was removed while Rollcall was running. Nothing more is saved until it restarts.",
                retryAfter: 30)
        case is StorageFull:
            self = AppError(
                .serviceUnavailable, .storageFull,
                "The disk holding the database is full. Nothing more is saved until space is freed.")
        case is NotSaved, is UnreadableRow:
            self = AppError(
                .internalServerError, .internalError, "Something went wrong on our side. Try again in a moment.")
        default: return nil
        }
    }

    /// The database does not answer (stopped, restarting, out of reach): nothing was done, and the same request
    /// can be sent again in a few seconds.
    package static let databaseUnavailable = AppError(
        .serviceUnavailable, .databaseUnavailable,
        "The database does not answer just now, so nothing was saved. Try again in a few seconds.", retryAfter: 5)

    /// The answers to refused corrections of a session.
    package static func correction(_ refusal: SessionCorrectionRefusal) -> AppError {
        switch refusal {
        case .closed:
            .conflict(.sessionClosed, "This session has closed; reopen it first to change it.")
        case .notOpened:
            .conflict(.sessionNotStarted, "This session has not opened yet; open it first.")
        case .stillOpen:
            .conflict(.sessionAlreadyOpen, "This session is still open; there is nothing to reopen.")
        case .alreadyOpened:
            .conflict(.sessionStarted, "This session has opened already, so its start can no longer move.")
        case .unconfirmedDelete(let contents):
            AppError(
                .conflict, .confirmDelete,
                contents.attempts > 0
                    ? "Deleting this session also deletes its \(contents.phrase). Send records=\(contents.records)&attempts=\(contents.attempts) to confirm."
                    : "Deleting this session also deletes its \(contents.phrase). Send records=\(contents.records) to confirm.",
                details: ["records": .number(Double(contents.records)), "attempts": .number(Double(contents.attempts))])
        }
    }

    /// The answers to quiz refusals.
    package static func quiz(_ refusal: QuizRefusal) -> AppError {
        switch refusal {
        case .notCheckedIn:
            AppError(
                .forbidden, .notCheckedIn,
                "Check in to this class first: the quiz is open to the students in the room. If you are here, ask your teacher to let you in."
            )
        case .runStopped: .conflict(.quizStopped, "The teacher has stopped this quiz.")
        case .attemptClosed(let ending):
            AppError(
                .conflict, .attemptClosed, Self.closedMessage(ending), details: ["ending": .text(ending.rawValue)])
        case .timeLimitPassed:
            .conflict(.timeLimitPassed, "The time for this quiz is up; this answer came too late to count.")
        case .staleSequence(let current):
            AppError(
                .conflict, .staleSequence,
                "A newer answer to this question is saved already; this older one was not kept.",
                details: ["currentSequence": .number(Double(current))])
        case .alreadyRunning: .conflict(.quizAlreadyRunning, "This quiz is running in this session already.")
        case .sessionNotOpen:
            .conflict(.sessionNotOpen, "Quizzes run in an open session; open the session first.")
        case .archived:
            .conflict(
                .quizArchived, "This quiz is archived because students answered it; duplicate it to use it again.")
        case .alreadyAdmitted: .conflict(.alreadyAdmitted, "This student is already let in to this quiz.")
        case .answer(let refusal):
            AppError(
                refusal.code == .unknownQuestion ? .notFound : .badRequest, refusal.code, refusal.message)
        }
    }

    package static func closedMessage(_ ending: AttemptEnding) -> Phrase {
        switch ending {
        case .submitted: "You have submitted this quiz; your answers are in."
        case .timeLimit: "The time for this quiz is up; your saved answers are in."
        case .endedByTeacher: "Your teacher ended your attempt; your saved answers are in."
        case .quizStopped: "The teacher stopped this quiz; your saved answers are in."
        }
    }

    /// HTTP statuses for the check-in policy's refusals.
    package static func status(for error: CheckInError) -> HTTPResponse.Status {
        switch error {
        case .invalidCode, .locationRequired: .badRequest
        case .sessionClosed, .codeExpired, .deviceAlreadyUsed: .conflict
        case .locationInaccurate: .unprocessableContent
        case .notEnrolled, .outOfRange, .networkNotAllowed, .verificationRequired, .verificationFailed: .forbidden
        }
    }
}
