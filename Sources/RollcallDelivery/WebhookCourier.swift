import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import RollcallModel

/// Text messages through an SMS gateway's webhook: a JSON POST of `{"to", "text", "id"}` with the shared secret in
/// `X-Rollcall-Secret`. A 2xx answer is delivered; a 4xx other than 408 and 429 is refused for good; anything else is
/// tried again.
package struct WebhookCourier: Courier {
    package let url: URL
    package let secret: String
    package var timeout: TimeAmount = .seconds(30)

    package init(url: URL, secret: String, timeout: TimeAmount = .seconds(30)) {
        self.url = url
        self.secret = secret
        self.timeout = timeout
    }

    package struct Payload: Encodable {
        package var to: String
        package var text: String
        /// The outbox id: the same on every attempt, so that a gateway can drop a repeat.
        package var id: Int64

        package init(to: String, text: String, id: Int64) {
            self.to = to
            self.text = text
            self.id = id
        }
    }

    package func deliver(_ message: OutboxMessage) async throws {
        let body = try JSONEncoder().encode(Payload(to: message.recipient, text: message.body, id: message.id))
        let status = try await post(body)
        guard (200..<300).contains(status) else {
            throw DeliveryFailure(
                permanent: (400..<500).contains(status) && status != 408 && status != 429,
                description: "the SMS gateway answered \(status)")
        }
    }

    /// One HTTP/1.1 request on its own connection; answers the response's status code.
    package func post(_ body: Data) async throws -> Int {
        guard let host = url.host else { throw DeliveryFailure(permanent: true, description: "no host in \(url)") }
        let secure = url.scheme?.lowercased() == "https"
        let port = url.port ?? (secure ? 443 : 80)
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?\(query)" }
        let tls = secure ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let hostname = SMTPClient.isAddress(host) ? nil : host
        let (lines, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                try NIOSSLClientHandler(context: tls, serverHostname: hostname))
                        }
                        try channel.pipeline.syncOperations.addHandler(StatusLineReader(continuation: continuation))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            throw DeliveryFailure(permanent: false, description: "the SMS gateway cannot be reached: \(error)")
        }
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        var head = "POST \(path) HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/json\r\n"
        head += "X-Rollcall-Secret: \(secret)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        do {
            try await channel.writeAndFlush(buffer).get()
            var iterator = lines.makeAsyncIterator()
            guard let line = try await iterator.next(),
                let match = line.firstMatch(of: /^HTTP\/1\.[01] (\d{3})/), let status = Int(match.1)
            else {
                throw DeliveryFailure(permanent: false, description: "the SMS gateway gave no HTTP answer")
            }
            return status
        } catch let failure as DeliveryFailure {
            throw failure
        } catch {
            throw DeliveryFailure(permanent: false, description: "the SMS gateway connection failed: \(error)")
        }
    }
}

/// Reads the first line of an HTTP response, its status line.
package final class StatusLineReader: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer

    package let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private var pending: [UInt8] = []
    private var done = false

    package init(continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            done = true
            continuation.yield(String(decoding: pending[..<end], as: UTF8.self))
            continuation.finish()
        } else if pending.count > 8192 {
            done = true
            continuation.finish(throwing: DeliveryFailure(permanent: false, description: "no status line"))
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }
}
