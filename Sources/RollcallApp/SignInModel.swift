import Foundation
import Observation
import RollcallClient
import RollcallProtocol

/// What went wrong, as a screen shows it: the sentence, and what the person can do next.
public struct Problem: Sendable, Equatable {
    /// The server's stable code (`network_unavailable` when no answer came).
    public var code: String
    /// A sentence for the person.
    public var message: String
    /// What the screen offers next.
    public var next: NextStep

    public init(_ error: RollcallError) {
        code = error.code
        message = error.message
        next = NextStep(for: error)
    }
}

/// What a screen offers after a refusal: each refusal's "try again" rule.
public enum NextStep: Sendable, Equatable {
    /// Scan the code on the screen again (the code turned, or was not Rollcall's).
    case scanAgain
    /// The same again, once the cause is fixed (location allowed, passkey retried, network back).
    case tryAgain
    /// Come closer to the room: `distance` metres away where `radius` was allowed.
    case moveCloser(distance: Double?, radius: Double?)
    /// Register a passkey on this phone first.
    case registerPasskey
    /// Wait this many seconds before trying again.
    case wait(seconds: Int)
    /// Sign in again (the token ran out or was revoked).
    case signIn
    /// Join the course first (with the code its teacher gave), then scan again.
    case joinCourse
    /// Nothing the person can do from here (the session closed, not enrolled, another student's phone).
    case none

    init(for error: RollcallError) {
        if error.clientCode != nil {
            self = .tryAgain
            return
        }
        switch error.errorCode {
        case .codeExpired, .invalidCode: self = .scanAgain
        case .outOfRange:
            self = .moveCloser(
                distance: error.details["distanceMeters"]?.number, radius: error.details["radiusMeters"]?.number)
        case .verificationRequired: self = .registerPasskey
        case .tooManyAttempts: self = .wait(seconds: error.retryAfter ?? 60)
        case .notSignedIn, .invalidToken: self = .signIn
        case .notEnrolled: self = .joinCourse
        case .locationRequired, .locationInaccurate, .verificationFailed, .networkNotAllowed, .databaseUnavailable:
            self = .tryAgain
        default: self = .none
        }
    }
}

/// The sign-in screen: email and password in, a signed-in client out.
@MainActor @Observable
public final class SignInModel {
    /// Where the sign-in stands.
    public enum State: Sendable, Equatable {
        case editing
        case signingIn
        case signedIn(User)
        case failed(Problem)
    }

    public var email = ""
    public var password = ""
    public private(set) var state = State.editing
    /// The signed-in client, once signed in; keep its token in the keychain.
    public private(set) var rollcall: Rollcall?
    let server: Rollcall

    public init(server: Rollcall) {
        self.server = server
    }

    /// Whether the button may be pressed.
    public var canSubmit: Bool {
        state != .signingIn && email.contains("@") && !password.isEmpty
    }

    public func signIn() async {
        guard canSubmit else { return }
        state = .signingIn
        do {
            let (signedIn, user) = try await server.signIn(
                email: email.trimmingCharacters(in: .whitespaces), password: password)
            password = ""
            rollcall = signedIn
            state = .signedIn(user)
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }

    /// Signs in with a passkey instead of the password: `answer` shows the platform's passkey prompt.
    public func signInWithPasskey(
        answer: @escaping @Sendable (PasskeyChallenge) async throws -> AssertionCredential
    ) async {
        guard state != .signingIn else { return }
        state = .signingIn
        do {
            let (signedIn, user) = try await server.signIn(passkey: answer)
            rollcall = signedIn
            state = .signedIn(user)
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }

    /// The confirmed phone number, for signing in with a texted code instead.
    public var phone = ""
    public var code = ""
    /// Whether a code was asked for, so that the screen shows the field to type it.
    public private(set) var codeSent = false

    /// Asks the server to text a sign-in code to `phone`; the answer is the same for any number.
    public func sendCode() async {
        guard state != .signingIn, !phone.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        state = .signingIn
        do {
            try await server.sendSignInCode(phone: phone)
            codeSent = true
            state = .editing
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }

    /// Signs in with the phone number and the code texted to it.
    public func signInWithCode() async {
        guard state != .signingIn, codeSent, !code.isEmpty else { return }
        state = .signingIn
        do {
            let (signedIn, user) = try await server.signIn(phone: phone, code: code)
            code = ""
            rollcall = signedIn
            state = .signedIn(user)
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }

    /// Back to editing after a failure, keeping what was typed.
    public func edit() {
        if case .failed = state { state = .editing }
    }
}

/// The course list: a student's joined courses or a teacher's own.
@MainActor @Observable
public final class CourseListModel {
    public enum State: Sendable, Equatable {
        case loading
        case loaded([Course])
        case failed(Problem)
    }

    public private(set) var state = State.loading
    let rollcall: Rollcall

    public init(rollcall: Rollcall) {
        self.rollcall = rollcall
    }

    public func load() async {
        state = .loading
        do {
            state = .loaded(try await rollcall.courses())
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }

    /// Joins a course with its code, then reloads the list.
    public func join(code: String) async {
        do {
            _ = try await rollcall.joinCourse(code: code)
            await load()
        } catch {
            state = .failed(Problem(RollcallError.wrapping(error)))
        }
    }
}

extension RollcallError {
    /// Any failure as a `RollcallError`, so that every screen shows one kind of problem.
    static func wrapping(_ error: any Error) -> RollcallError {
        (error as? RollcallError)
            ?? RollcallError(.checkInInterrupted, message: "Something went wrong: \(error)")
    }
}
