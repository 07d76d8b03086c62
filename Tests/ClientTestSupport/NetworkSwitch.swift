import Foundation
import NIOCore
import NIOPosix

/// A TCP relay in front of the test server that a test can take offline, as a phone loses its network: going offline
/// cuts every open connection and closes each new one at once; going online lets them through again.
public final class NetworkSwitch: @unchecked Sendable {
    public let port: Int
    private let listener: any Channel
    // Guards `online` and `connections`, touched from the relay's event loops and the test's task.
    private let lock = NSLock()
    private var online = true
    private var connections: [any Channel] = []
    private var admitted = 0
    private var target: Int

    private init(listener: any Channel, target: Int) {
        self.listener = listener
        self.target = target
        port = listener.localAddress?.port ?? 0
    }

    /// Starts relaying a port on loopback to `target`.
    public static func start(to target: Int) async throws -> NetworkSwitch {
        let box = Box()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                guard let relay = box.relay, relay.admit(inbound) else {
                    return inbound.close()
                }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(Forward(to: inbound))
                        }
                    }
                    .connect(host: "127.0.0.1", port: relay.currentTarget)
                    .flatMapThrowing { outbound in
                        relay.track(outbound)
                        try inbound.pipeline.syncOperations.addHandler(Forward(to: outbound))
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let relay = NetworkSwitch(listener: listener, target: target)
        box.relay = relay
        return relay
    }

    public var isOnline: Bool { lock.withLock { online } }
    /// How many connections the relay has let through so far: a client that comes back after a drop shows here.
    public var connectionsAdmitted: Int { lock.withLock { admitted } }
    private var currentTarget: Int { lock.withLock { target } }

    /// Sends new connections to another port from now on, as a load balancer does when a server goes away.
    public func retarget(to port: Int) {
        lock.withLock { target = port }
    }

    /// Cuts every connection through the relay and refuses new ones until `goOnline()`.
    public func goOffline() async {
        let open = lock.withLock {
            online = false
            defer { connections = [] }
            return connections
        }
        for channel in open { try? await channel.close() }
    }

    public func goOnline() {
        lock.withLock { online = true }
    }

    public func stop() async {
        await goOffline()
        try? await listener.close()
    }

    private func admit(_ channel: any Channel) -> Bool {
        lock.withLock {
            if online {
                connections.append(channel)
                admitted += 1
            }
            return online
        }
    }

    private func track(_ channel: any Channel) {
        let stillOnline = lock.withLock {
            if online { connections.append(channel) }
            return online
        }
        if !stillOnline { channel.close(promise: nil) }
    }

    private final class Box: @unchecked Sendable {
        // Set once, before the first connection can arrive.
        var relay: NetworkSwitch?
    }

    /// Writes what one side reads to the other, and closes the other side when this one closes.
    private final class Forward: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let peer: any Channel

        init(to peer: any Channel) {
            self.peer = peer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            peer.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
