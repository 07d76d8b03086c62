import Hummingbird
import RollcallCore

extension AppError {
    /// The answer for an error thrown below the routes (stores, the database, the check-in's group commit): the one
    /// place where a domain error becomes an HTTP status, a stable code and a sentence.
    init?(domain error: any Error) {
        switch error {
        case let error as AccountConflict:
            switch error {
            case .emailTaken:
                self = .conflict("email_taken", "An account with this email address already exists. Sign in instead.")
            case .studentNumberTaken(let number):
                self = .conflict("student_number_taken", "Student number \(number) already belongs to another account.")
            }
        case is PasskeyAlreadyRegistered:
            self = .conflict("passkey_already_registered", "This passkey is already registered with Rollcall.")
        case let error as SessionTransitionRefusal:
            switch error {
            case .alreadyOpen: self = .conflict("session_already_open", "This session is already open.")
            case .closedForGood:
                self = .conflict("session_closed", "This session has closed; create a new session instead.")
            case .alreadyClosed: self = .conflict("session_closed", "This session is already closed.")
            }
        case let refusal as CheckInRefusal:
            var details: [String: Detail] = [:]
            if let distance = refusal.distance { details["distanceMeters"] = .number(distance.rounded()) }
            if let radius = refusal.radius { details["radiusMeters"] = .number(radius.rounded()) }
            if let step = refusal.step { details["step"] = .text(step) }
            self = AppError(
                Self.status(for: refusal.error), refusal.code, refusal.message,
                details: details.isEmpty ? nil : details)
        case let error as NotStored: self = .notFound(error.what)
        case let error as TooManyAttempts:
            self = AppError(.tooManyRequests, "too_many_attempts", error.message, retryAfter: error.retryAfter)
        case is DatabaseUnavailable:
            self = AppError(.serviceUnavailable, "database_unavailable", "The database does not answer.")
        case is DatabaseFileGone:
            self = AppError(
                .serviceUnavailable, "database_unavailable",
                "The database file was removed while Rollcall was running. Nothing more is saved until it restarts.")
        case is StorageFull:
            self = AppError(
                .serviceUnavailable, "storage_full",
                "The disk holding the database is full. Nothing more is saved until space is freed.")
        case is NotSaved, is UnreadableRow:
            self = AppError(
                .internalServerError, "internal_error", "Something went wrong on our side. Try again in a moment.")
        default: return nil
        }
    }

    /// HTTP statuses for the check-in policy's refusals.
    static func status(for error: CheckInError) -> HTTPResponse.Status {
        switch error {
        case .invalidCode, .locationRequired: .badRequest
        case .sessionClosed, .codeExpired, .deviceAlreadyUsed: .conflict
        case .locationInaccurate: .unprocessableContent
        case .notEnrolled, .outOfRange, .networkNotAllowed, .verificationRequired, .verificationFailed: .forbidden
        }
    }
}
