import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallStorage
import RollcallWords

/// The request context of every Rollcall route.
public struct AppRequestContext: RequestContext, WebSocketRequestContext, ReaderContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<AppRequestContext>
    package var identity: Identity?
    /// The address of whoever opened the connection: the client, or a reverse proxy in front of Rollcall.
    package let peerAddress: String?
    /// The client's IP address, for allowed-network checks and address limits: the peer, or the client a trusted
    /// proxy names (`ClientAddressMiddleware`); `nil` when a trusted proxy's headers leave it unknown.
    package var clientAddress: String?
    /// The connection, where a refused WebSocket upgrade leaves its answer (`RefusedUpgradeAnswer`).
    package let channel: any Channel
    /// Whom the request is answered for: `LanguageMiddleware` sets it from the browser and the school's default,
    /// `PersonLanguageMiddleware` from the person's own setting once they are known; a WebSocket keeps it for the
    /// messages it writes after the upgrade was answered.
    package var reader = Reader.english

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.webSocket = .init()
        self.peerAddress = source.channel.remoteAddress?.ipAddress
        self.clientAddress = peerAddress
    }

    /// JSON bodies are small; uploads collect their own, larger limit.
    public var maxUploadSize: Int { 64 * 1024 }

    /// Every answer's dates with milliseconds, as in the live messages.
    public var responseEncoder: JSONEncoder { JSONCoding.encoder }
    /// Request dates with or without fractional seconds.
    public var requestDecoder: JSONDecoder { JSONCoding.decoder }

    package var user: User? { identity?.user }

    /// The signed-in user, or a 401 that tells the person to sign in.
    package func requireUser() throws -> User {
        guard let user = identity?.user else { throw AppError.notSignedIn }
        return user
    }

    /// The signed-in user if they hold one of `roles`.
    package func requireRole(_ roles: Role..., message: Phrase) throws -> User {
        let user = try requireUser()
        guard roles.contains(where: user.has) else { throw AppError.forbidden(message) }
        return user
    }

    /// Reads a numeric id from the path, answering 404 for anything that is not one.
    package func id(_ name: String, _ code: ErrorCode, _ what: Phrase) throws -> Int64 {
        guard let text = parameters.get(name), let id = Int64(text), id > 0 else {
            throw AppError.notFound(code, what)
        }
        return id
    }
}
