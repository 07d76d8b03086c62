import Hummingbird

/// Serves the bundled styles and scripts under `/assets`, before any sign-in work is done.
package struct AssetsMiddleware: RouterMiddleware {

    package init() {
    }

    package typealias Context = AppRequestContext
    package let files = FileMiddleware<AppRequestContext, LocalFileSystem>(
        PageRenderer.assetsDirectory, urlBasePath: "/assets",
        cacheControl: .init([(MediaType(type: .any), [.maxAge(300)])])
    )

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix("/assets/") else { return try await next(request, context) }
        return try await files.handle(request, context: context, next: next)
    }
}
