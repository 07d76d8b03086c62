import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// A plain TCP connection to a server on loopback, for what no HTTP client sends: silence, half a request, garbage.
struct RawConnection: Sendable {
    let channel: any Channel
    private let collector: Collector

    static func open(port: Int) async throws -> RawConnection {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, collector: collector)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// What the server sent so far.
    var received: String { collector.received.withLockedValue { String(buffer: $0) } }

    var isOpen: Bool { channel.isActive }

    /// Waits until the server closes the connection; false when it is still open after `seconds`. Looked at every
    /// 20 ms: a task group racing the close future against a timer waits for the future anyway, since it cannot be
    /// cancelled, and a connection the server keeps open held the caller until the server's own idle timeout.
    func closed(within seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while channel.isActive, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !channel.isActive
    }

    /// Asks for a WebSocket upgrade as a client library does, and returns the whole answer once the server closes
    /// the connection (a refused upgrade is answered, then closed).
    static func refusedUpgrade(port: Int, path: String, headers: [String] = []) async throws -> String {
        let connection = try await open(port: port)
        let lines =
            [
                "GET \(path) HTTP/1.1", "Host: localhost:\(port)", "Connection: Upgrade", "Upgrade: websocket",
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            ] + headers
        try await connection.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        let closed = await connection.closed(within: 30)
        await connection.close()
        guard closed else { throw RawConnectionError.stillOpen(connection.received) }
        return connection.received
    }

    enum RawConnectionError: Error {
        case stillOpen(String)
    }

    func close() async {
        try? await channel.close().get()
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = NIOLockedValueBox(ByteBuffer())

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            _ = received.withLockedValue { $0.writeBuffer(&bytes) }
        }
    }
}

extension RawConnection {
    /// A loopback port nothing listens on: the kernel's pick for a socket closed at once.
    static func unusedPort() throws -> Int {
        let held = try heldPort()
        Foundation.close(held.socket)
        return held.port
    }

    /// A loopback port the kernel picks, listened on by `socket` until the caller closes it.
    static func heldPort() throws -> (port: Int, socket: Int32) {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
                    && listen(socket, 1) == 0
            }
        }
        if !bound { Foundation.close(socket) }
        try #require(bound, "no loopback port is free")
        return (Int(UInt16(bigEndian: address.sin_port)), socket)
    }
}
