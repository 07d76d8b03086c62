import Hummingbird
import RollcallCore

/// Chooses the language each request is answered in, from the browser's `Accept-Language` and the school's default;
/// placed before the error middleware, so that a refusal is said in it too.
struct LanguageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let catalogs: Catalogs
    /// `ROLLCALL_DEFAULT_LANGUAGE`.
    let fallback: String

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let catalog = catalogs.choose(
            setting: nil, acceptLanguage: request.headers[.acceptLanguage], fallback: fallback)
        var response = try await Catalogs.$reader.withValue(Reader(catalog)) {
            try await next(request, context)
        }
        // Caches must not give one person's language to another.
        response.headers[values: .vary].append("Accept-Language")
        return response
    }
}

/// Once the person is known, their own setting outranks their browser's.
struct PersonLanguageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let catalogs: Catalogs

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let language = context.user?.language, let catalog = catalogs.byLanguage[language] {
            Catalogs.reader.catalog = catalog
        }
        return try await next(request, context)
    }
}
