import Hummingbird
import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Decides WebSocket upgrades with the router, and keeps the router's answer to a refused one so that the client
/// reads the same status and JSON error a plain request gets (401, 403, 404, 400 `invalid_after`).
///
/// HummingbirdWebSocket answers every refused upgrade with a bare 400 of its own; the answer kept here takes its
/// place in `RefusedUpgradeAnswer`, on the same connection.
package struct WebSocketUpgradeDecision<Base: HTTPResponder>: HTTPResponder where Base.Context == AppRequestContext {
    package let base: Base

    package init(base: Base) {
        self.base = base
    }

    package func respond(to request: Request, context: AppRequestContext) async throws -> Response {
        let response: Response
        do {
            response = try await base.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        // The router's WebSocket routes answer 200 to the upgrades they accept, and nothing else does.
        if response.status != .ok {
            try await RefusedUpgradeAnswer.keep(response, on: context.channel)
        }
        return response
    }
}

/// Put in place of HummingbirdWebSocket's bare 400 the answer the router gave a refused upgrade.
///
/// Sits between the HTTP decoder and the upgrade handler from the connection's start; only a refused upgrade
/// leaves an answer here, and the connection closes after it.
package final class RefusedUpgradeAnswer: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private var answer: (head: HTTPResponseHead, body: ByteBuffer)?

    /// Keeps the router's answer on this connection's handler, before the upgrade is refused.
    package static func keep(_ response: Response, on channel: any Channel) async throws {
        let collected = CollectedBody()
        try await response.body.write(collected.writer)
        let body = collected.buffer.withLockedValue { $0 }
        var headers = HTTPHeaders()
        for field in response.headers where field.name != .contentLength && field.name != .connection {
            headers.add(name: field.name.rawName, value: field.value)
        }
        headers.replaceOrAdd(name: "Content-Length", value: "\(body.readableBytes)")
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1, status: .init(statusCode: response.status.code), headers: headers)
        try await channel.pipeline.handler(type: RefusedUpgradeAnswer.self).map { $0.answer = (head, body) }.get()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let answer else {
            context.write(data, promise: promise)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head:
            context.write(wrapOutboundOut(.head(answer.head)), promise: promise)
        case .body:
            promise?.succeed()
        case .end(let trailers):
            self.answer = nil
            context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
            context.write(wrapOutboundOut(.end(trailers)), promise: promise)
        }
    }
}

/// A response body gathered into one buffer.
private struct CollectedBody {
    package let buffer = NIOLockedValueBox(ByteBuffer())

    package var writer: Writer { Writer(buffer: buffer) }

    package struct Writer: ResponseBodyWriter {
        package let buffer: NIOLockedValueBox<ByteBuffer>

        package mutating func write(_ part: ByteBuffer) async throws {
            var part = part
            _ = buffer.withLockedValue { $0.writeBuffer(&part) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
