import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore
import RollcallProtocol

/// Who is making the request, as the access token or session cookie says.
struct Identity: Sendable {
    var user: User
    var tokenHash: String
    var csrf: String
    /// Cookie-borne identities need a CSRF token on every change; bearer tokens cannot be sent by another site.
    var viaCookie: Bool
}
