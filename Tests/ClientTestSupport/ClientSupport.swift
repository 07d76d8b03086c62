import Foundation
import PasskeyTestSupport
import RollcallClient
import ServerTestSupport
import Testing

extension API {
    /// The test server's root over loopback; the server must have been started with `setup: .live`.
    public func serverURL() throws -> URL {
        URL(string: "http://127.0.0.1:\(try #require(client.port, "the server listens on a port"))")!
    }

    /// A client of the test server signed in as `account`, or through `network` when given.
    public func rollcall(_ account: Account? = nil, through network: NetworkSwitch? = nil) throws -> Rollcall {
        let url = try network.map { URL(string: "http://127.0.0.1:\($0.port)")! } ?? serverURL()
        return Rollcall(serverURL: url, token: account?.token)
    }

    /// Enrols a student in a course with its join code.
    public func join(_ student: Account, code: String) async throws {
        let joined = try await call(.post, "/api/v1/courses/join", as: student, json: ["code": code])
        #expect(joined.status == .ok || joined.status == .created, "joining: \(joined.text)")
    }
}

/// Expects `body` to throw a `RollcallError` with exactly this code and HTTP status and a sentence for people.
public func expectRefusal(
    _ code: String, status: Int?, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as RollcallError {
        #expect(error.code == code, "\(error) \(error.details)", sourceLocation: sourceLocation)
        #expect(error.status == status, "\(error.code): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.description.count > 10, "a sentence for the person", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected RollcallError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// What a teacher's live room delivered, in order.
public final class RoomLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [RoomMessage] = []
    private var end: String?

    public init() {}

    public func record(_ message: RoomMessage) { lock.withLock { messages.append(message) } }
    public var all: [RoomMessage] { lock.withLock { messages } }
    /// How the room's sequence ended, once it has: a test waiting for a message says so rather than waiting on.
    public var ending: String? { lock.withLock { end } }
    public func ended(_ outcome: String) { lock.withLock { end = outcome } }
    public var snapshots: [RoomSnapshot] {
        all.compactMap { if case .snapshot(let snapshot) = $0 { snapshot } else { nil } }
    }
    public var events: [RoomEvent] { all.compactMap { if case .event(let event) = $0 { event } else { nil } } }
    /// The students of every `checked_in` event, in the order they came, repeats included.
    public var checkedIn: [Int64] { events.filter { $0.kind == "checked_in" }.compactMap(\.studentID) }
}

/// A phone's passkey, answering the challenges the client hands it.
public final class Phone: @unchecked Sendable {
    private let lock = NSLock()
    private var authenticator: SoftwareAuthenticator

    public init(_ authenticator: SoftwareAuthenticator) {
        self.authenticator = authenticator
    }

    public func answer(_ challenge: PasskeyChallenge) throws -> AssertionCredential {
        let json = lock.withLock { authenticator.assertionJSON(challenge: challenge.challengeBytes) }
        return try JSONDecoder().decode(AssertionCredential.self, from: JSONSerialization.data(withJSONObject: json))
    }
}
