import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import RollcallCore
import RollcallModel

/// A small SMTP client (RFC 5321) over SwiftNIO: plain, STARTTLS or implicit TLS, AUTH PLAIN or LOGIN, one
/// message per connection, every wait bounded by `timeout`.
package struct SMTPClient: Sendable {
    package let server: MailServer
    /// The certificates that may sign the server's; the system's when `nil`.
    package var trustRoots: NIOSSLTrustRoots?
    /// The name Rollcall gives in EHLO.
    package var localName: String = "rollcall.invalid"
    package var timeout: TimeAmount = .seconds(30)

    package init(
        server: MailServer, trustRoots: NIOSSLTrustRoots? = nil, localName: String = "rollcall.invalid",
        timeout: TimeAmount = .seconds(30)
    ) {
        self.server = server
        self.trustRoots = trustRoots
        self.localName = localName
        self.timeout = timeout
    }

    /// Hands `data` (a rendered message) over for `recipient`, from `sender`; throws `DeliveryFailure`.
    package func send(from sender: String, to recipient: String, data: String) async throws {
        let tls = try makeTLSContext()
        let (replies, continuation) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        let security = server.security
        let hostname = Self.isAddress(server.host) ? nil : server.host
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                try NIOSSLClientHandler(context: tls, serverHostname: hostname))
                        }
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyReader(continuation: continuation))
                    }
                }
                .connect(host: server.host, port: server.port).get()
        } catch {
            throw DeliveryFailure(
                permanent: false, description: "cannot connect to \(server.host):\(server.port): \(error)")
        }
        let conversation = SMTPConversation(channel: channel, replies: replies.makeAsyncIterator(), timeout: timeout)
        do {
            try await converse(
                conversation, tls: tls, hostname: hostname, sender: sender, recipient: recipient, data: data)
            try? await channel.close()
        } catch {
            try? await channel.close()
            throw error
        }
    }

    private func converse(
        _ smtp: SMTPConversation, tls: NIOSSLContext, hostname: String?, sender: String, recipient: String,
        data: String
    ) async throws {
        try await smtp.expect(nil, 220, "greeting")
        var capabilities = try await smtp.expect("EHLO \(localName)", 250, "EHLO").lines
        if server.security == .startTLS {
            guard capabilities.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                throw DeliveryFailure(permanent: false, description: "the server does not offer STARTTLS")
            }
            try await smtp.expect("STARTTLS", 220, "STARTTLS")
            try await smtp.startTLS(context: tls, hostname: hostname)
            capabilities = try await smtp.expect("EHLO \(localName)", 250, "EHLO after STARTTLS").lines
        }
        if let username = server.username {
            let password = server.password ?? ""
            let mechanisms = Set(
                capabilities.filter { $0.uppercased().hasPrefix("AUTH ") }
                    .flatMap { $0.uppercased().split(separator: " ").dropFirst().map(String.init) })
            if mechanisms.contains("PLAIN") {
                let token = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
                try await smtp.expect("AUTH PLAIN \(token)", 235, "AUTH PLAIN")
            } else if mechanisms.contains("LOGIN") {
                try await smtp.expect("AUTH LOGIN", 334, "AUTH LOGIN")
                try await smtp.expect(Data(username.utf8).base64EncodedString(), 334, "AUTH LOGIN user name")
                try await smtp.expect(Data(password.utf8).base64EncodedString(), 235, "AUTH LOGIN password")
            } else {
                throw DeliveryFailure(
                    permanent: false, description: "the server offers neither AUTH PLAIN nor AUTH LOGIN")
            }
        }
        // An address outside ASCII needs the server's SMTPUTF8 (RFC 6531); without it the message cannot go at all.
        let international = !sender.allSatisfy(\.isASCII) || !recipient.allSatisfy(\.isASCII)
        if international && !capabilities.contains(where: { $0.uppercased() == "SMTPUTF8" }) {
            throw DeliveryFailure(
                permanent: true,
                description: "the mail server takes only ASCII addresses (it does not offer SMTPUTF8)")
        }
        try await smtp.expect(
            "MAIL FROM:<\(sender)>\(international ? " SMTPUTF8" : "")", 250, "MAIL FROM", refusalIsPermanent: true)
        try await smtp.expect("RCPT TO:<\(recipient)>", 250, "RCPT TO", also: [251], refusalIsPermanent: true)
        try await smtp.expect("DATA", 354, "DATA", refusalIsPermanent: true)
        try await smtp.expect(Self.dotStuffed(data) + ".", 250, "the message", refusalIsPermanent: true)
        _ = try? await smtp.expect("QUIT", 221, "QUIT")
    }

    /// A line that starts with a dot gets another, so that no line of the message ends it early (RFC 5321 4.5.2).
    package static func dotStuffed(_ data: String) -> String {
        var text = data.replacingOccurrences(of: "\r\n.", with: "\r\n..")
        if text.hasPrefix(".") { text = "." + text }
        if !text.hasSuffix("\r\n") { text += "\r\n" }
        return text
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { configuration.trustRoots = trustRoots }
        return try NIOSSLContext(configuration: configuration)
    }

    package static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}

/// One reply of the server: its code and its lines of text.
package struct SMTPReply: Sendable {
    package var code: Int
    package var lines: [String]
}

/// The commands and replies of one connection.
package final class SMTPConversation: @unchecked Sendable {
    // Used by one task at a time: the sender's.
    private var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator
    package let channel: any Channel
    package let timeout: TimeAmount

    package init(
        channel: any Channel, replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator, timeout: TimeAmount
    ) {
        self.channel = channel
        self.replies = replies
        self.timeout = timeout
    }

    /// Sends `command` (when given) and reads the reply, which must have `code` (or one of `also`).
    @discardableResult
    package func expect(
        _ command: String?, _ code: Int, _ step: String, also: [Int] = [], refusalIsPermanent: Bool = false
    ) async throws -> SMTPReply {
        let timedOut = NIOLockedValueBox(false)
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        let reply: SMTPReply?
        do {
            if let command {
                try await channel.writeAndFlush(ByteBuffer(string: command + "\r\n")).get()
            }
            reply = try await replies.next()
        } catch {
            if timedOut.withLockedValue({ $0 }) {
                throw DeliveryFailure(permanent: false, description: "no answer to \(step) within \(timeout)")
            }
            throw DeliveryFailure(permanent: false, description: "the connection failed during \(step): \(error)")
        }
        guard let reply else {
            let reason = timedOut.withLockedValue({ $0 }) ? "no answer within \(timeout)" : "the server hung up"
            throw DeliveryFailure(permanent: false, description: "\(reason) during \(step)")
        }
        guard reply.code == code || also.contains(reply.code) else {
            throw DeliveryFailure(
                permanent: refusalIsPermanent && (500..<600).contains(reply.code),
                description: "\(step) refused: \(reply.code) \(reply.lines.joined(separator: " "))")
        }
        return reply
    }

    /// Puts TLS under the conversation, as after the server's 220 to STARTTLS.
    package func startTLS(context: NIOSSLContext, hostname: String?) async throws {
        let channel = self.channel
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(
                try NIOSSLClientHandler(context: context, serverHostname: hostname), position: .first)
        }.get()
    }
}

/// Reads the server's replies: lines `250-first`, `250-more`, `250 last` make one reply.
package final class SMTPReplyReader: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer

    package let continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation
    private var pending: [UInt8] = []
    private var lines: [String] = []

    package init(continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.continuation = continuation
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<end])
            pending.removeSubrange(...end)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            guard text.count >= 3, let code = Int(text.prefix(3)) else {
                continuation.finish(throwing: DeliveryFailure(permanent: false, description: "not SMTP: \(text)"))
                return
            }
            lines.append(String(text.dropFirst(4)))
            if text.count == 3 || text[text.index(text.startIndex, offsetBy: 3)] == " " {
                continuation.yield(SMTPReply(code: code, lines: lines))
                lines = []
            }
        }
        if pending.count > 64 * 1024 {
            continuation.finish(throwing: DeliveryFailure(permanent: false, description: "a reply line is too long"))
            context.close(promise: nil)
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
