import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One loopback address in front of a server on another port, as HAProxy or a virtual IP is in front of a database:
/// `move` sends new connections to another port and drops the open ones, which lead to the old server; `cut` makes
/// it a virtual IP whose machine is lost.
public final class TCPProxy: Sendable {
    public let port: Int
    private let listener: any Channel
    private let state: NIOLockedValueBox<State>

    private struct State {
        var target: Int
        /// Counts moves, so that a connection made to the old target while moving is not kept.
        var moves = 0
        var cut = false
        var open: [ObjectIdentifier: any Channel] = [:]
        /// Connections that relay nothing more while new ones go through (`silenceOpen`).
        var silenced: Set<ObjectIdentifier> = []

        func relays(_ channel: any Channel) -> Bool { !cut && !silenced.contains(ObjectIdentifier(channel)) }
    }

    private init(port: Int, listener: any Channel, state: NIOLockedValueBox<State>) {
        self.port = port
        self.listener = listener
        self.state = state
    }

    /// Listens on a free loopback port and relays each connection to `target` on loopback.
    public static func start(to target: Int) async throws -> TCPProxy {
        let state = NIOLockedValueBox(State(target: target))
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // The client's first bytes wait in the kernel until its connection onwards exists, as no handler
            // reads them before this initializer's future completes.
            .childChannelInitializer { inbound in Self.relay(inbound, state: state) }
            .bind(host: "127.0.0.1", port: 0).get()
        return TCPProxy(port: listener.localAddress?.port ?? 0, listener: listener, state: state)
    }

    /// Sends new connections to `target`; the open ones close, as a proxy that fails over does.
    public func move(to target: Int) {
        let dropped = state.withLockedValue { state in
            state.target = target
            state.moves += 1
            state.cut = false
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for channel in dropped { channel.close(promise: nil) }
    }

    /// Relays nothing more and closes nothing, as when the machine behind a virtual IP is lost: no reset comes, what
    /// was sent is never answered, and new connections are taken and go nowhere, until `move`.
    public func cut() {
        state.withLockedValue { $0.cut = true }
    }

    /// Relays nothing more on the connections open now, and closes none of them, while new connections go through:
    /// a server that stopped answering the connections it had, and takes new ones.
    public func silenceOpen() {
        state.withLockedValue { $0.silenced.formUnion($0.open.keys) }
    }

    public func stop() async {
        try? await listener.close().get()
        move(to: 0)
    }

    private static func relay(_ inbound: any Channel, state: NIOLockedValueBox<State>) -> EventLoopFuture<Void> {
        let (target, moves, cut) = state.withLockedValue { ($0.target, $0.moves, $0.cut) }
        guard !cut else {
            state.withLockedValue { $0.open[ObjectIdentifier(inbound)] = inbound }
            return inbound.eventLoop.makeCompletedFuture {
                try inbound.pipeline.syncOperations.addHandler(Relay(to: nil, state: state))
            }
        }
        return ClientBootstrap(group: inbound.eventLoop)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(Relay(to: inbound, state: state))
                }
            }
            .connect(host: "127.0.0.1", port: target)
            .flatMapThrowing { outbound in
                let kept = state.withLockedValue { state in
                    guard state.moves == moves else { return false }
                    state.open[ObjectIdentifier(inbound)] = inbound
                    state.open[ObjectIdentifier(outbound)] = outbound
                    return true
                }
                guard kept else {
                    outbound.close(promise: nil)
                    throw ChannelError.ioOnClosedChannel
                }
                for channel in [inbound, outbound] {
                    channel.closeFuture.whenComplete { _ in
                        _ = state.withLockedValue { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
                    }
                }
                try inbound.pipeline.syncOperations.addHandler(Relay(to: outbound, state: state))
            }
    }

    /// Writes what one side reads to the other unless the proxy is cut, and closes the other when one side closes.
    private final class Relay: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let partner: (any Channel)?
        let state: NIOLockedValueBox<State>

        init(to partner: (any Channel)?, state: NIOLockedValueBox<State>) {
            self.partner = partner
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard state.withLockedValue({ $0.relays(context.channel) }) else { return }
            partner?.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            // While cut, a lost machine would not say that its side closed either.
            guard state.withLockedValue({ $0.relays(context.channel) }) else { return }
            partner?.close(promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
