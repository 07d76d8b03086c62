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

    /// A whole HTML page: the model drawn by its template, inside the layout with the person's navigation.
    func render(
        _ model: some PageModel, title: String, context: AppRequestContext, status: HTTPResponse.Status = .ok,
        layout: String = "layout"
    ) throws -> Response {
        let template = type(of: model).template
        guard let body = library.render(model, withTemplate: template) else {
            throw AppError(.internalServerError, .internalError, "The page \(template) is missing.")
        }
        let frame = Frame(
            title: title, body: body, csrf: context.identity?.csrf ?? "",
            user: context.user.map {
                Frame.Person(
                    name: $0.name, role: $0.role.rawValue, isAdmin: $0.role == .admin,
                    isHealthOfficer: $0.healthOfficer)
            }
        )
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
    /// The error as a page, with the error's own headers (`Allow`, `Retry-After`) as its JSON answer has them.
    func errorPage(_ error: AppError, context: AppRequestContext) throws -> Response {
        var response = try render(
            ErrorPage(status: error.status.code, message: error.message, code: error.code), title: "Rollcall",
            context: context, status: error.status)
        for field in error.headers { response.headers[field.name] = field.value }
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

/// What a page shows; the template of the same name draws it.
protocol PageModel: Sendable {
    /// The template's name, without `.mustache`.
    static var template: String { get }
}

/// The layout around every page: its title, the page itself, and who is signed in.
struct Frame: Sendable {
    struct Person: Sendable {
        var name: String
        var role: String
        var isAdmin: Bool
        var isHealthOfficer: Bool
    }
    var title: String
    var body: String
    var csrf: String
    var user: Person?
}

/// A failed request, in the same words the API would give.
struct ErrorPage: PageModel {
    static let template = "error"
    var status: Int
    var message: String
    var code: String
}
