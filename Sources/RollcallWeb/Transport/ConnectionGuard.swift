import Foundation
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RollcallCore
import RollcallProtocol

/// Wraps the server's child channel (HTTP with the WebSocket upgrade, TLS or not) with the connection rules: a
/// limit on open connections, a deadline for silence and for a request's head, and a clear answer to what is not
/// HTTP.
package struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Base.Value
    package let base: Base
    package let connections: ConnectionGuard.Registry
    package let idleTimeout: TimeAmount
    package let headTimeout: TimeAmount

    package init(base: Base, connections: ConnectionGuard.Registry, idleTimeout: TimeAmount, headTimeout: TimeAmount) {
        self.base = base
        self.connections = connections
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            // Right before HTTP decoding (after TLS, when there is TLS): it sees the request's bytes as sent.
            let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
            let connectionGuard = ConnectionGuard(
                connections: connections, idleTimeout: idleTimeout, headTimeout: headTimeout)
            try pipeline.addHandler(connectionGuard, position: .before(encoder))
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(
                MalformedRequestAnswer(connectionGuard: connectionGuard), position: .after(decoder))
            try pipeline.addHandler(RefusedUpgradeAnswer(), position: .after(decoder))
            return value
        }
    }

    package func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Keeps a connection from holding the server without asking anything: closed after `idleTimeout` of silence
/// before its first request, or `headTimeout` after any request began without its head (line and headers) having
/// arrived; closed at once on a graceful shutdown while it has asked nothing. Between requests, Hummingbird's idle
/// timeout applies. Each connection is counted in the registry, which keeps the number open under the limit.
package final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private enum Phase {
        case silent, readingHead, asked, betweenRequests
    }

    private let connections: Registry
    private let idleTimeout: TimeAmount
    private let headTimeout: TimeAmount
    private var phase = Phase.silent
    /// Whether a request head has arrived on this connection: from then on a shutdown waits for Hummingbird.
    private var hasAsked = false
    /// Whether the guard is closing the connection (silent too long, evicted, refused, a shutdown).
    package private(set) var closing = false
    private var id: UInt64?
    private var deadline: Scheduled<Void>?
    /// The last bytes read, so that a blank line split between two reads is still found.
    private var tail: [UInt8] = []

    package init(connections: Registry, idleTimeout: TimeAmount, headTimeout: TimeAmount) {
        self.connections = connections
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
    }

    /// Leaves room under the process's file limit (`ulimit -n`) for the database, the files served and the
    /// listening socket: the limit less 256, at least 64.
    package static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 768 }
        let files = Int(clamping: limit.rlim_cur)  // unlimited reads as the largest number
        return max(64, min(files, 65_536) - 256)
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        let admission = connections.admit(context.channel)
        id = admission.id
        // Closed by its own guard, on its own event loop, as a connection that sent nothing.
        admission.evicted?.pipeline.fireUserInboundEventTriggered(Evicted())
        if admission.refused {
            close(context)
            return
        }
        schedule(context, after: idleTimeout)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    package func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let id { connections.closed(id) }
        id = nil
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if phase != .asked {
            let bytes = unwrapInboundIn(data)
            if phase == .silent || phase == .betweenRequests {
                phase = .readingHead
                schedule(context, after: headTimeout)
            }
            let window = tail + bytes.readableBytesView
            if window.indices.dropLast(3).contains(where: {
                window[$0] == 13 && window[$0 + 1] == 10 && window[$0 + 2] == 13 && window[$0 + 3] == 10
            }) {
                phase = .asked
                deadline?.cancel()
                deadline = nil
                tail = []
                if !hasAsked, let id { connections.asked(id) }
                hasAsked = true
            } else {
                tail = Array(window.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent && !hasAsked || event is Evicted {
            close(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Tells the guard of the oldest silent connection to close it, for a newer one under the limit.
    private struct Evicted {}

    /// Closes the connection; one that has not asked anything yet as if its peer had stopped sending, first. The
    /// HTTP upgrade handler waiting for its first request then ends as for a peer gone, a routine close, where a bare
    /// close is logged by Hummingbird as an error, for every idle connection at every shutdown. What the decoder makes
    /// of a head cut short is not answered (`closing`): the connection was closed for its silence, not its bytes.
    private func close(_ context: ChannelHandlerContext) {
        closing = true
        if !hasAsked { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        context.close(promise: nil)
    }

    /// A request was read to its end: the next bytes begin another head, which has `headTimeout` to arrive.
    package func requestEnded() {
        guard phase == .asked else { return }
        phase = .betweenRequests
    }

    private func schedule(_ context: ChannelHandlerContext, after delay: TimeAmount) {
        deadline?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: delay) {
            let (guardian, context) = loopBound.value
            guardian.close(context)
        }
    }

    /// The connections open in the server, and those that have not asked anything yet, oldest first.
    package final class Registry: Sendable {
        package let limit: Int
        private struct State {
            package var open = 0
            package var next: UInt64 = 0
            package var waiting: [(id: UInt64, channel: any Channel)] = []
        }

        private let state = NIOLockedValueBox(State())

        package init(limit: Int) {
            self.limit = limit
        }

        package struct Admission {
            package var id: UInt64
            /// A connection that asked nothing yet, closed to make room.
            package var evicted: (any Channel)?
            /// No room: the new connection is closed at once.
            package var refused: Bool
        }

        package func admit(_ channel: any Channel) -> Admission {
            state.withLockedValue { state in
                state.open += 1
                state.next += 1
                var admission = Admission(id: state.next, evicted: nil, refused: false)
                if state.open > limit {
                    if state.waiting.isEmpty {
                        admission.refused = true
                        return admission
                    }
                    admission.evicted = state.waiting.removeFirst().channel
                }
                state.waiting.append((admission.id, channel))
                return admission
            }
        }

        package func asked(_ id: UInt64) {
            state.withLockedValue { state in state.waiting.removeAll { $0.id == id } }
        }

        package func closed(_ id: UInt64) {
            state.withLockedValue { state in
                state.open -= 1
                state.waiting.removeAll { $0.id == id }
            }
        }

        /// Connections open now.
        package var open: Int { state.withLockedValue { $0.open } }
    }
}

/// Answers what cannot be read as an HTTP request, instead of closing in silence: 431 when the headers are larger
/// than the server takes, 400 otherwise; then closes the connection. Tells the connection's guard where each
/// request ends.
package final class MalformedRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart
    private let connectionGuard: ConnectionGuard
    private var answered = false
    /// False from an upgrade's request on: what follows is WebSocket frames, not HTTP.
    private var readsHTTP = true

    package init(connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if readsHTTP {
            switch unwrapInboundIn(data) {
            case .head(let head): readsHTTP = !head.headers.contains(name: "upgrade")
            case .body: break
            case .end: connectionGuard.requestEnded()
            }
        }
        context.fireChannelRead(data)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A head cut short by the guard's own close: nothing to answer, and nothing for Hummingbird to report.
        if connectionGuard.closing { return }
        guard let error = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let (status, code, message): (HTTPResponseStatus, ErrorCode, String) =
            if case .headerOverflow = error {
                (
                    .requestHeaderFieldsTooLarge, .headersTooLarge,
                    "The request's headers are larger than Rollcall takes."
                )
            } else {
                (.badRequest, .malformedRequest, "The request could not be read as HTTP.")
            }
        let body = ByteBuffer(string: #"{"error":{"code":"\#(code.rawValue)","message":"\#(message)"}}"#)
        let head = HTTPResponseHead(
            version: .http1_1, status: status,
            headers: [
                "Content-Type": "application/json; charset=utf-8", "Content-Length": "\(body.readableBytes)",
                "Connection": "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            // As for a peer gone: the upgrade handler, still waiting for a request it could read, ends quietly.
            loopBound.value.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            loopBound.value.close(promise: nil)
        }
    }
}
