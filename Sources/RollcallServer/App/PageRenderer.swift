import Foundation
import Hummingbird
import Mustache

/// Renders server-side pages: a page template inside the shared layout.
struct PageRenderer: Sendable {
    let library: MustacheLibrary

    /// The templates shipped as package resources, so the binary runs from any working directory.
    static func load() async throws -> PageRenderer {
        let library = try await MustacheLibrary(directory: ResourceFiles.path("templates"))
        guard library.getTemplate(named: "layout") != nil else {
            throw ConfigurationError(variable: "resources", problem: "are missing from the build: no page templates")
        }
        return PageRenderer(library: library)
    }

    /// The static files (styles, scripts, icons), served under `/assets`.
    static var assetsDirectory: String {
        ResourceFiles.path("static")
    }

    /// A whole HTML page: `template` rendered with `data`, inside the layout with the person's navigation.
    func render(
        _ template: String, title: String, data: [String: Any] = [:], context: AppRequestContext,
        status: HTTPResponse.Status = .ok, layout: String = "layout"
    ) throws -> Response {
        guard let body = library.render(data, withTemplate: template) else {
            throw AppError(.internalServerError, "internal_error", "The page \(template) is missing.")
        }
        var frame: [String: Any] = ["title": title, "body": body, "csrf": context.identity?.csrf ?? ""]
        if let user = context.user {
            frame["user"] = ["name": user.name, "role": user.role.rawValue, "isAdmin": user.role == .admin]
        }
        let html = library.render(frame, withTemplate: layout) ?? body
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    /// A friendly page for a failed request, with the same words the API would give.
    func errorPage(_ error: AppError, context: AppRequestContext) throws -> Response {
        try render(
            "error", title: "Rollcall",
            data: ["status": error.status.code, "message": error.message, "code": error.code],
            context: context, status: error.status
        )
    }
}
