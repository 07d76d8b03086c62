import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import RollcallWords

/// Every path the router serves and the methods it takes there, so that a method a path does not take is answered
/// 405 with `Allow`, as the API description promises, instead of the router's 404. Filled once every route is
/// added, before the server starts.
package final class RouteIndex: Sendable {
    package init() {}

    private struct Entry {
        /// The path's segments; `nil` where the route captures a parameter.
        package var segments: [String?]
        package var methods: [HTTPRequest.Method]
    }

    /// By number of segments, so that a request compares only paths as long as its own.
    private let entries = NIOLockedValueBox<[Int: [Entry]]>([:])

    /// Takes the router's routes as they are now.
    package func index(_ routes: [Router<AppRequestContext>.RouteDescription]) {
        let order: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        let byPath = Dictionary(grouping: routes, by: \.path.description)
        let indexed = byPath.values.map { routes in
            let segments = routes[0].path.description.split(separator: "/").map { segment -> String? in
                segment.hasPrefix("{") || segment.hasPrefix(":") ? nil : String(segment)
            }
            let taken = Set(routes.map(\.method))
            return Entry(segments: segments, methods: order.filter(taken.contains))
        }
        entries.withLockedValue { $0 = Dictionary(grouping: indexed, by: \.segments.count) }
    }

    /// The methods `path` takes, or `nil` when the router serves no such path. A literal segment wins over a
    /// parameter, as in the router: `/courses/join` is its own path, not a course called "join".
    package func methods(at path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        return entries.withLockedValue { entries in
            (entries[segments.count] ?? []).filter { entry in
                zip(entry.segments, segments).allSatisfy { pattern, segment in
                    pattern.map { $0 == segment } ?? true
                }
            }
            .max { $0.segments.compactMap { $0 }.count < $1.segments.compactMap { $0 }.count }?.methods
        }
    }
}

/// Answers a method a path does not take with 405 and `Allow` before any route runs, so that no handler ever
/// sees a method its path does not list (the router would try `/courses/{courseID}` for `PATCH /courses/join`).
package struct MethodNotAllowedMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let routes: RouteIndex

    package init(routes: RouteIndex) {
        self.routes = routes
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method != .head, let allowed = routes.methods(at: request.uri.path),
            !allowed.contains(request.method)
        {
            var error = AppError(
                .methodNotAllowed, .methodNotAllowed, "This address does not accept \(request.method.rawValue).")
            error.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
            throw error
        }
        return try await next(request, context)
    }
}
