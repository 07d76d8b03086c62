import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOSSL
import RollcallProtocol

/// A session's live room as an `AsyncSequence`: a snapshot, then each event exactly once, and the counts.
///
/// When the connection drops, the sequence reconnects by itself with `after=` the last event it delivered, so the
/// events it missed arrive, in order, and none twice. It ends only with a refusal (a `RollcallError`, such as
/// `session_not_found` or `invalid_token`) or when the task iterating it is cancelled.
public struct LiveRoom: AsyncSequence, Sendable {
    public typealias Element = RoomMessage
    let rollcall: Rollcall
    let sessionID: Int64
    let after: Int64?

    public func makeAsyncIterator() -> AsyncThrowingStream<RoomMessage, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream<RoomMessage, any Error>.makeStream()
        let cursor = Cursor(after)
        let channel = LiveChannel(
            rollcall: rollcall, path: "/sessions/\(sessionID)/live",
            query: { cursor.last.map { "after=\($0)" } },
            probe: { [rollcall, sessionID] in try await rollcall.probeLiveRoom(sessionID, after: cursor.last) }
        )
        let task = Task {
            do {
                try await channel.run { text in
                    guard let message = try RoomMessage.decode(text) else { return }
                    switch message {
                    case .snapshot(let snapshot):
                        cursor.last = snapshot.lastEventId
                    case .event(let event):
                        // The server sends each event once; a resumed connection must never repeat one either.
                        if let last = cursor.last, event.id <= last { return }
                        cursor.last = event.id
                    case .counts:
                        break
                    }
                    continuation.yield(message)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }

    /// The last event delivered, shared between the reconnecting loop and the message handler.
    final class Cursor: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int64?
        init(_ start: Int64?) { stored = start }
        var last: Int64? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }
}

/// The projector's feed as an `AsyncSequence`: a frame whenever the code turns or the count changes.
///
/// Reconnects by itself after a drop (the next frame is the current one, so nothing is lost); ends with a refusal or
/// when the iterating task is cancelled.
public struct ProjectorFeed: AsyncSequence, Sendable {
    public typealias Element = ProjectorFrame
    let rollcall: Rollcall
    let sessionID: Int64

    public func makeAsyncIterator() -> AsyncThrowingStream<ProjectorFrame, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream<ProjectorFrame, any Error>.makeStream()
        let channel = LiveChannel(
            rollcall: rollcall, path: "/sessions/\(sessionID)/projector/live", query: { nil },
            probe: { [rollcall, sessionID] in try await rollcall.probeProjector(sessionID) }
        )
        let task = Task {
            do {
                try await channel.run { text in
                    continuation.yield(try LiveJSON.decoder.decode(ProjectorFrame.self, from: Data(text.utf8)))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }
}

/// One of the server's WebSocket channels, kept open: reconnects after a drop, stops at a refusal.
struct LiveChannel: Sendable {
    let rollcall: Rollcall
    /// Under `/api/v1`.
    let path: String
    /// The query of the next connection, read afresh for each.
    let query: @Sendable () -> String?
    /// Asks the same address over plain HTTP why an upgrade was refused; throws the refusal, if any.
    let probe: @Sendable () async throws -> Void

    /// Waits between attempts while the server cannot be reached: short at first, at most a few seconds.
    static let retryDelays: [Duration] =
        [.milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1)]
        + [.seconds(2), .seconds(3)]

    func run(_ receive: @escaping @Sendable (String) throws -> Void) async throws {
        var failures = 0
        while !Task.isCancelled {
            let received = Received()
            do {
                try await connect { text in
                    try receive(text)
                    received.mark()
                }
            } catch let error as RollcallError {
                throw error
            } catch is CancellationError {
                return
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                // The upgrade answer's body is not visible here; the same address over HTTP says why.
                do {
                    try await probe()
                } catch let refusal as RollcallError
                    where !refusal.isNetworkFailure && refusal.errorCode != .websocketRequired
                    && (refusal.status ?? 0) < 500
                {
                    // Refused for good (signed out, not this teacher's room); a server that cannot serve just now
                    // (503 `database_unavailable`) is tried again like a dropped connection.
                    throw refusal
                } catch {}
            } catch {
                // The network or the server went away; try again.
            }
            if received.any { failures = 0 }
            let delay = Self.retryDelays[min(failures, Self.retryDelays.count - 1)]
            failures += 1
            try? await Task.sleep(for: delay)
        }
    }

    private func connect(_ receive: @escaping @Sendable (String) throws -> Void) async throws {
        var components = URLComponents(url: rollcall.apiURL, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path += path
        components.query = query()
        var headers = HTTPFields()
        if let token = rollcall.token { headers[.authorization] = "Bearer \(token)" }
        let secure = components.scheme == "wss"
        try await WebSocketClient.connect(
            url: components.string!,
            configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: headers),
            tlsConfiguration: secure ? TLSConfiguration.makeClientConfiguration() : nil,
            logger: Self.logger
        ) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 22) {
                if case .text(let text) = message { try receive(text) }
            }
        }
    }

    static let logger: Logger = {
        var logger = Logger(label: "rollcall.client.live")
        logger.logLevel = .critical
        return logger
    }()

    /// Whether a connection delivered anything, so that a healthy one resets the wait between attempts.
    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = false
        func mark() { lock.withLock { stored = true } }
        var any: Bool { lock.withLock { stored } }
    }
}
