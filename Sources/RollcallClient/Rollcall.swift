import Foundation
import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if !os(Linux)
    import OpenAPIURLSession
#endif

/// A course as its teacher, students and admins see it.
public typealias Course = Components.Schemas.Course
/// One class meeting of a course.
public typealias Session = Components.Schemas.Session
/// The check-in settings a teacher asks for when opening a session.
public typealias SessionSettings = Components.Schemas.SessionSettingsDraft
/// A person's account.
public typealias User = Components.Schemas.User
/// A scanned code, recorded by the server: its ticket proves the scan for a short while (two minutes by default).
public typealias Scan = Components.Schemas.ScanAnswer
/// A student's record for a session after checking in; `new` is false when it repeats an earlier check-in.
public typealias CheckInResult = Components.Schemas.CheckInResult
/// A passkey's answer to a challenge, as `PublicKeyCredential.toJSON()` gives it (binary values in base64url).
public typealias AssertionCredential = Components.Schemas.AssertionCredential
/// What the projector shows at one moment: the code's link, the typed code, the count.
public typealias ProjectorFrame = Components.Schemas.ProjectorFrame
/// One student's record in a course: the figures, every session with its status, and every change by hand.
public typealias StudentRecord = Operations.StudentAttendance.Output.Ok.Body.JsonPayload
/// A student invited by a roster import, who joins once registered.
public typealias CourseInvitation = Components.Schemas.CourseInvitation

/// A client of one Rollcall server: signs in, and speaks the API with Swift names and `RollcallError`s.
///
/// Built on the client generated from Rollcall's `openapi.yaml`; `api` is that client, for operations this layer
/// does not name yet.
public struct Rollcall: Sendable {
    /// The server's root, such as `https://rollcall.school.edu`.
    public let serverURL: URL
    /// The bearer token requests are sent with; `nil` when signed out.
    public let token: String?
    /// The language asked for in every request (`Accept-Language`); the server's default when `nil`.
    public let language: String?
    /// The generated client, with this one's token and error mapping.
    public let api: Client
    /// The generated client at the server root, for the scanned link (`/C/{code}`), which lies outside `/api/v1`.
    let root: Client
    let transport: any ClientTransport

    /// A client of the server at `serverURL`, signed in with `token` when given; `language` (`fr`) is the language
    /// its refusals are to be said in, sent as `Accept-Language`.
    public init(serverURL: URL, token: String? = nil, language: String? = nil) {
        self.init(serverURL: serverURL, token: token, language: language, transport: Self.defaultTransport())
    }

    /// A client that sends its requests through `transport`.
    public init(serverURL: URL, token: String?, language: String? = nil, transport: any ClientTransport) {
        self.serverURL = serverURL
        self.token = token
        self.language = language
        self.transport = transport
        let middlewares: [any ClientMiddleware] = [
            Authorization(token: token, language: language), Refusals(), RetryOnce(),
        ]
        let configuration = Configuration(dateTranscoder: .iso8601WithFractionalSeconds)
        api = Client(
            serverURL: serverURL.appendingPathComponent("api/v1"), configuration: configuration, transport: transport,
            middlewares: middlewares)
        root = Client(
            serverURL: serverURL, configuration: configuration, transport: transport, middlewares: middlewares)
    }

    /// The address of the JSON API, `/api/v1` under the server's root.
    public var apiURL: URL { serverURL.appendingPathComponent("api/v1") }

    /// The same server with another token (or none).
    public func signedIn(with token: String?) -> Rollcall {
        Rollcall(serverURL: serverURL, token: token, language: language, transport: transport)
    }

    static func defaultTransport() -> any ClientTransport {
        #if os(Linux)
            WholeBodyTransport()
        #else
            URLSessionTransport()
        #endif
    }

    /// Runs one call of the generated client, turning its failures into `RollcallError`s.
    func perform<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as ClientError {
            if let refusal = error.underlyingError as? RollcallError { throw refusal }
            guard let response = error.response else { throw RollcallError.networkUnavailable(error.underlyingError) }
            throw RollcallError.unexpectedAnswer(status: Int(response.status.code), "\(error.underlyingError)")
        } catch let error as RollcallError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw RollcallError.unexpectedAnswer(status: nil, "\(error)")
        }
    }
}

// MARK: - Signing in

extension Rollcall {
    /// Signs in with an email address and password; answers a client holding the new token (valid 90 days).
    public func signIn(email: String, password: String) async throws -> (rollcall: Rollcall, user: User) {
        let answer = try await perform {
            try await api.createAccessToken(body: .json(.init(email: email, password: password))).created.body.json
        }
        return (signedIn(with: answer.token), answer.user)
    }

    /// Creates a student account (the server emails a confirmation link) and signs it in, in one request.
    public func register(name: String, email: String, password: String) async throws
        -> (rollcall: Rollcall, user: User)
    {
        let answer = try await perform {
            try await api.register(
                body: .json(.init(name: name, email: email, password: password, signIn: .token))
            ).created.body.json
        }
        // A server from before `signIn` registers without signing in: the app may meet one mid-upgrade.
        guard let token = answer.token else { return try await signIn(email: email, password: password) }
        return (signedIn(with: token), answer.user)
    }

    /// Asks the server to text a sign-in code to `phone`; the answer is the same whether or not the number belongs to
    /// an account, so nothing here says whether a text went out.
    public func sendSignInCode(phone: String) async throws {
        _ = try await perform { try await api.sendPhoneSignInCode(body: .json(.init(phone: phone))).accepted }
    }

    /// Signs in with a confirmed phone number and the code texted to it.
    public func signIn(phone: String, code: String) async throws -> (rollcall: Rollcall, user: User) {
        let answer = try await perform {
            try await api.createAccessTokenWithPhoneCode(body: .json(.init(phone: phone, code: code))).created.body
                .json
        }
        return (signedIn(with: answer.token), answer.user)
    }

    /// Signs in with a passkey: `answer` signs the server's challenge with one of this site's passkeys on the device
    /// (user verification required; the assertion must carry its `userHandle`).
    public func signIn(
        passkey answer: @Sendable (PasskeyChallenge) async throws -> AssertionCredential
    ) async throws -> (rollcall: Rollcall, user: User) {
        let options = try await perform { try await api.passkeySignInOptions().ok.body.json.publicKey }
        let challenge = PasskeyChallenge(
            challenge: options.challenge, relyingPartyID: nil, allowedCredentialIDs: [],
            options: try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(options)))
        let assertion = try await answer(challenge)
        let signedIn = try await perform {
            try await api.createAccessTokenWithPasskey(body: .json(.init(credential: assertion))).created.body.json
        }
        return (self.signedIn(with: signedIn.token), signedIn.user)
    }

    /// Revokes this client's token on the server; the client is then signed out.
    public func signOut() async throws {
        _ = try await perform { try await api.revokeAccessToken().noContent }
    }

    /// The signed-in person's account.
    public func me() async throws -> User {
        try await perform { try await api.getMe().ok.body.json.user }
    }
}

// MARK: - Courses, rosters, sessions, reports

/// What a roster import did.
public struct RosterImportResult: Sendable, Equatable, Codable {
    /// Students with an account, now enrolled.
    public var enrolled: Int
    /// Students who were already on the course.
    public var alreadyEnrolled: Int
    /// People without an account yet, invited by email.
    public var invited: [CourseInvitation]
}

extension Rollcall {
    /// The courses one sees: a teacher's own, a student's joined ones, every course for an admin; by name.
    public func courses() async throws -> [Course] {
        try await perform { try await api.listCourses().ok.body.json.courses }
    }

    /// Creates a course taught by the signed-in teacher.
    public func createCourse(
        name: String, description: String? = nil, plannedSessions: Int? = nil, timeZone: String? = nil
    ) async throws -> Course {
        try await perform {
            try await api.createCourse(
                body: .json(
                    .init(name: name, description: description, plannedSessions: plannedSessions, timeZone: timeZone))
            ).created.body.json.course
        }
    }

    /// Imports a roster from CSV (name, email, optional student number): every row is taken, or none is and the
    /// `RollcallError` (`invalid_rows`) lists each bad row in `rows`.
    ///
    /// - Parameter progress: called with the bytes handed to the network so far and the total, as the upload goes.
    public func importRoster(
        courseID: Int64, csv: Data, chunkSize: Int = 16 * 1024,
        progress: (@Sendable (_ sent: Int, _ total: Int) -> Void)? = nil
    ) async throws -> RosterImportResult {
        let total = csv.count
        let chunks = stride(from: 0, to: total, by: max(1, chunkSize)).map { start in
            csv.subdata(in: start..<min(total, start + chunkSize))
        }
        let (stream, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
        continuation.finish()
        let reported = ProgressCount()
        let counted = stream.map { chunk -> ArraySlice<UInt8> in
            progress?(reported.add(chunk.count), total)
            return chunk
        }
        let body = HTTPBody(counted, length: .known(Int64(total)), iterationBehavior: .single)
        let answer = try await perform {
            try await api.importRoster(path: .init(courseID: courseID), body: .csv(body)).ok.body.json
        }
        return RosterImportResult(
            enrolled: answer.enrolled, alreadyEnrolled: answer.alreadyEnrolled, invited: answer.invited)
    }

    /// A course's sessions, newest first.
    public func sessions(courseID: Int64) async throws -> [Session] {
        try await perform { try await api.listSessions(path: .init(courseID: courseID)).ok.body.json.sessions }
    }

    /// One course.
    public func course(_ courseID: Int64) async throws -> Course {
        try await perform { try await api.getCourse(path: .init(courseID: courseID)).ok.body.json.course }
    }

    /// One session.
    public func session(_ sessionID: Int64) async throws -> Session {
        try await perform { try await api.getSession(path: .init(sessionID: sessionID)).ok.body.json.session }
    }

    /// Opens a session of a course now (or schedules it, when `scheduledAt` lies ahead).
    public func openSession(
        courseID: Int64, title: String? = nil, scheduledAt: Date? = nil, settings: SessionSettings? = nil
    ) async throws -> Session {
        try await perform {
            try await api.createSession(
                path: .init(courseID: courseID),
                body: .json(.init(title: title, scheduledAt: scheduledAt, settings: settings))
            ).created.body.json.session
        }
    }

    /// Opens a scheduled session now.
    public func openScheduledSession(_ sessionID: Int64) async throws -> Session {
        try await perform { try await api.openSession(path: .init(sessionID: sessionID)).ok.body.json.session }
    }

    /// Closes a session: it takes no more check-ins (a scheduled one is cancelled).
    public func closeSession(_ sessionID: Int64) async throws -> Session {
        try await perform { try await api.closeSession(path: .init(sessionID: sessionID)).ok.body.json.session }
    }

    /// A course's attendance as CSV: one row per student, one column per session, then the totals.
    public func courseReport(courseID: Int64) async throws -> Data {
        try await perform {
            let body = try await api.courseReport(path: .init(courseID: courseID)).ok.body.csv
            return try await Data(collecting: body, upTo: 64 << 20)
        }
    }

    /// A student's record in a course (a student may read their own).
    public func record(courseID: Int64, studentID: Int64) async throws -> StudentRecord {
        try await perform {
            try await api.studentAttendance(path: .init(courseID: courseID, studentID: studentID)).ok.body.json
        }
    }

    /// Joins a course with the code its teacher gave.
    public func joinCourse(code: String) async throws -> Course {
        try await perform { try await api.joinCourse(body: .json(.init(code: code))).ok.body.json.course }
    }

    /// What the projector shows now.
    public func projectorFrame(sessionID: Int64) async throws -> ProjectorFrame {
        try await perform { try await api.getProjectorFrame(path: .init(sessionID: sessionID)).ok.body.json }
    }

    /// The session's room, live: a snapshot, then each event once, resuming by itself after a drop.
    ///
    /// - Parameter after: resume after this event id instead of starting with a snapshot.
    public func room(sessionID: Int64, after: Int64? = nil) -> LiveRoom {
        LiveRoom(rollcall: self, sessionID: sessionID, after: after)
    }

    /// The projector's frames, live: each new code and each change of the count.
    public func projector(sessionID: Int64) -> ProjectorFeed {
        ProjectorFeed(rollcall: self, sessionID: sessionID)
    }

    /// Asks the live room's address over plain HTTP, to learn why a WebSocket upgrade was refused.
    func probeLiveRoom(_ sessionID: Int64, after: Int64?) async throws {
        _ = try await perform { try await api.liveRoom(path: .init(sessionID: sessionID), query: .init(after: after)) }
    }

    /// Asks the projector feed's address over plain HTTP, to learn why a WebSocket upgrade was refused.
    func probeProjector(_ sessionID: Int64) async throws {
        _ = try await perform { try await api.projectorFeed(path: .init(sessionID: sessionID)) }
    }
}

/// Bytes handed to the network so far, counted from the upload's stream.
final class ProgressCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ bytes: Int) -> Int {
        lock.withLock {
            count += bytes
            return count
        }
    }
}

/// Sends the bearer token, and the language refusals are to be said in, with every request.
struct Authorization: ClientMiddleware {
    let token: String?
    var language: String? = nil

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        if let language { request.headerFields[.acceptLanguage] = language }
        return try await next(request, body, baseURL)
    }
}

/// Sends a request once more when it got no answer at all and sending it twice is harmless: reads, and the
/// operations the server makes idempotent (a check-in answers its first result again). A keep-alive connection the
/// server closed just as it was reused fails that way, and is not worth bothering a person with.
struct RetryOnce: ClientMiddleware {
    static let idempotentOperations: Set<String> = ["checkIn", "checkInPasskeyOptions"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let safe = [.get, .head, .options].contains(request.method) || Self.idempotentOperations.contains(operationID)
        guard safe, body?.iterationBehavior ?? .multiple == .multiple else {
            return try await next(request, body, baseURL)
        }
        do {
            return try await next(request, body, baseURL)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Innermost middleware: what reaches here is the transport's failure, never an HTTP answer.
            return try await next(request, body, baseURL)
        }
    }
}

/// Turns every refusal (4xx, 5xx) into a `RollcallError` read from the server's error body, whatever the operation.
struct Refusals: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 4 << 20) }
        let retryAfter = response.headerFields[.retryAfter].flatMap { Int($0) }
        throw RollcallError(status: Int(response.status.code), body: data, retryAfter: retryAfter)
    }
}
