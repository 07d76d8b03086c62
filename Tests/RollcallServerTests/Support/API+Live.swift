import Foundation
import HTTPTypes
import HummingbirdWSTesting
import RollcallCore
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A live view of a session as a test sees it: each message, in the order the server sent them.
final class LiveView: @unchecked Sendable {
    struct Closed: Error {}
    // Read by one test task at a time.
    private var iterator: AsyncStream<String>.AsyncIterator

    init(_ stream: AsyncStream<String>) {
        iterator = stream.makeAsyncIterator()
    }

    /// The next message; one that never comes is caught by the suite's time limit.
    func next() async throws -> Reply {
        guard let text = await iterator.next() else { throw Closed() }
        return Reply(status: .ok, headers: [:], text: text)
    }

    /// The next message, which must be of `type`.
    func next(_ type: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        let message = try await next()
        #expect(message.string("type") == type, "expected \(type), got \(message.text)", sourceLocation: sourceLocation)
        return message
    }
}

extension API {
    /// Opens the session's live WebSocket as `account` and hands the messages to `body`; closes it afterwards.
    func watch(
        _ sessionID: Int64, as account: Account?, after: Int64? = nil, headers extra: HTTPFields = [:],
        _ body: @escaping @Sendable (LiveView) async throws -> Void
    ) async throws {
        var headers = extra
        if let account { headers[.authorization] = "Bearer \(account.token)" }
        let path = "/api/v1/sessions/\(sessionID)/live" + (after.map { "?after=\($0)" } ?? "")
        try await client.ws(path, configuration: .init(additionalHeaders: headers)) { inbound, outbound, _ in
            let (stream, continuation) = AsyncStream<String>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { continuation.finish() }
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        if case .text(let text) = message { continuation.yield(text) }
                    }
                }
                try await body(LiveView(stream))
                try await outbound.close(.normalClosure, reason: nil)
                try await group.waitForAll()
            }
        }
    }

    /// The stored events of a session, oldest first, read from the database file.
    func events(sessionID: Int64) async throws -> [SessionEvent] {
        let database = try Database.sqlite(path: databasePath, logger: .init(label: "test"))
        do {
            let events = try await database.read { sql in
                try await SessionEvents.after(0, sessionID: sessionID, in: sql)
            }
            try await database.shutdown()
            return events
        } catch {
            try? await database.shutdown()
            throw error
        }
    }
}

/// An id handed out of a WebSocket handler.
final class LockedIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int64 = 0
    var value: Int64 { lock.withLock { stored } }
    func set(_ value: Int64) { lock.withLock { stored = value } }
}
