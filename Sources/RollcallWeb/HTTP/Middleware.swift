import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallStorage
import RollcallWords

/// Finds out who is asking, from a bearer token or the session cookie, and checks the CSRF token of cookie requests.
package struct AuthenticationMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package static let cookieName = "rollcall_session"
    package static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    /// Paths a learning platform posts to across sites: they sign a person in themselves, so the cookie of whoever
    /// was signed in before neither counts nor asks for a CSRF token.
    package static let cookieFree: Set<String> = ["/lti/login", "/lti/launch"]

    package let tokens: AccessTokenStore

    package init(tokens: AccessTokenStore) {
        self.tokens = tokens
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // `/metrics` has a token of its own (`ROLLCALL_METRICS_TOKEN`), not a person's.
        if request.uri.path == SystemRoutes.metrics.description { return try await next(request, context) }
        var context = context
        if let authorization = request.headers[.authorization] {
            guard authorization.lowercased().hasPrefix("bearer "),
                let identity = try await tokens.identity(token: String(authorization.dropFirst(7)), kind: .api)
            else {
                throw AppError(
                    .unauthorized, .invalidToken, "The access token is unknown or has expired. Sign in again.")
            }
            context.identity = identity
        } else if let cookie = request.cookies[Self.cookieName], !Self.cookieFree.contains(request.uri.path) {
            // A stale cookie is not an error: the person is simply signed out.
            context.identity = try await tokens.identity(token: cookie.value, kind: .web)
        }
        if let identity = context.identity {
            guard !identity.user.disabled else { throw AppError.accountDisabled }
            if identity.viaCookie && ![.get, .head, .options].contains(request.method) {
                guard let sent = request.headers[Self.csrfHeader],
                    constantTimeEqual(Array(sent.utf8), Array(identity.csrf.utf8))
                else {
                    throw AppError.csrf
                }
            }
        }
        return try await next(request, context)
    }
}

/// Finds the client's address behind trusted reverse proxies, by the rule in `ClientAddress`.
package struct ClientAddressMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    package static let forwarded = HTTPField.Name("Forwarded")!

    package let trustedProxies: [NetworkRange]

    package init(trustedProxies: [NetworkRange]) {
        self.trustedProxies = trustedProxies
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !trustedProxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = ClientAddress.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[values: Self.forwardedFor],
            forwarded: request.headers[values: Self.forwarded], trustedProxies: trustedProxies)
        return try await next(request, context)
    }
}

/// Answers every failure in Rollcall's format: JSON for the API, a friendly page for people; 5xx are logged loudly.
/// A failure nothing names, while the database does not answer, is the database's: 503 with `Retry-After`, on every
/// route, pages too.
package struct ErrorMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let pages: PageRenderer?
    package var database: Database?

    package init(pages: PageRenderer?, database: Database? = nil) {
        self.pages = pages
        self.database = database
    }

    /// How long the database has to answer before an unexplained failure is put down to it.
    package static let databaseProbe = Duration.seconds(2)

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let bound = error as? ReaderBoundError
            let error = bound?.error ?? error
            var context = context
            if let bound { context.reader = bound.reader }
            var appError = Self.appError(for: error)
            if appError.code == ErrorCode.internalError.rawValue, let database,
                await !database.answers(within: Self.databaseProbe)
            {
                appError = .databaseUnavailable
            }
            if appError.status.code >= 500 {
                context.logger.error(
                    "request failed: \(request.method) \(request.uri.path): \(String(reflecting: error))")
            }
            if let pages, Self.wantsPage(request) {
                if appError.status == .unauthorized {
                    return .redirect(to: AccountRoutes.signIn(next: request.uri.path))
                }
                return try pages.errorPage(appError, context: context, path: request.uri.path)
            }
            return try appError.response(to: context.reader)
        }
    }

    package static func wantsPage(_ request: Request) -> Bool {
        let path = request.uri.path
        return !APIPath.contains(path) && path != SystemRoutes.health.description
            && path != SystemRoutes.metrics.description && !path.hasPrefix("/assets/") && !request.wantsJSON
    }

    package static func appError(for error: any Error) -> AppError {
        switch error {
        case let error as AppError: return error
        case let bound as ReaderBoundError: return appError(for: bound.error)
        case let error as DecodingError: return AppError.from(error)
        case is NIOTooManyBytesError: return AppError.bodyTooLarge(limit: 64 * 1024)
        case let error as HTTPError:
            switch error.status {
            case .notFound: return AppError(.notFound, .notFound, "There is nothing at this address.")
            case .methodNotAllowed:
                return AppError(.methodNotAllowed, .methodNotAllowed, "This address does not accept that method.")
            case .contentTooLarge: return AppError.bodyTooLarge(limit: 64 * 1024)
            default:
                // The HTTP layer's own refusals are named after their status (`bad_request`, `unauthorized`).
                let named = ErrorCode(
                    rawValue: error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"))
                let code = named ?? (error.status.code >= 500 ? .internalError : .badRequest)
                return AppError(error.status, code, .verbatim(error.body ?? error.status.reasonPhrase))
            }
        default:
            if let mapped = AppError(domain: error) { return mapped }
            return AppError(
                .internalServerError, .internalError, "Something went wrong on our side. Try again in a moment.")
        }
    }
}

/// Headers every answer carries, pages, API, assets and errors alike: no content-type sniffing (a file is what its
/// `Content-Type` says), no `Referer` sent onwards (a reset page carries its token in its address), and, when
/// Rollcall serves TLS itself, `Strict-Transport-Security` so that browsers keep to HTTPS. Behind a proxy that
/// terminates TLS, the proxy sends that one (docs/deployment.md).
package struct SecurityHeadersMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let servesTLS: Bool

    package init(servesTLS: Bool) {
        self.servesTLS = servesTLS
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        if servesTLS { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

extension HTTPField.Name {
    package static let xContentTypeOptions = Self("X-Content-Type-Options")!
    package static let referrerPolicy = Self("Referrer-Policy")!
    package static let strictTransportSecurity = Self("Strict-Transport-Security")!
}
