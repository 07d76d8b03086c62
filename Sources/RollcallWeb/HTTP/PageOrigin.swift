import Foundation
import Hummingbird

/// Where Rollcall's own pages live in a browser: the origin of `ROLLCALL_PUBLIC_URL`, and only that. The `Host`
/// header cannot tell: behind a reverse proxy it names the proxy's upstream (`127.0.0.1:8080`), and it carries no
/// scheme.
package struct PageOrigin: Sendable {
    /// `scheme://host[:port]`, the port only when it is not the scheme's default.
    package let origin: String

    package init(publicURL: String) {
        origin = Self.normalized(publicURL) ?? publicURL.lowercased()
    }

    /// A WebSocket opened by another site's page with the person's cookie: refusing it stops cross-site hijacking.
    /// Bearer tokens are never sent by a browser on its own, so native clients may send any origin.
    package func crossSite(_ request: Request, _ context: AppRequestContext) -> Bool {
        context.identity?.viaCookie == true && !sameOrigin(request)
    }

    /// A browser sends its page's origin with every WebSocket request; it must be the public URL's, scheme and all.
    package func sameOrigin(_ request: Request) -> Bool {
        guard let sent = request.headers[.origin] else { return true }
        return Self.normalized(sent) == origin
    }

    /// The origin of a URL, lower-cased, without a default port (80 for http, 443 for https); `nil` for anything
    /// without a scheme and host (such as the `null` origin of a sandboxed page).
    package static func normalized(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty
        else { return nil }
        let port = url.port.flatMap { port in
            (scheme, port) == ("http", 80) || (scheme, port) == ("https", 443) ? nil : port
        }
        return "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")"
    }
}
