import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWords

/// Chooses the language each request is answered in, from the browser's `Accept-Language` and the school's default;
/// placed before the error middleware, so that a refusal is said in it too.
package struct LanguageMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let catalogs: Catalogs
    /// `ROLLCALL_DEFAULT_LANGUAGE`.
    package let fallback: String

    package init(catalogs: Catalogs, fallback: String) {
        self.catalogs = catalogs
        self.fallback = fallback
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let catalog = catalogs.choose(
            setting: nil, acceptLanguage: request.headers[.acceptLanguage], fallback: fallback)
        let reader = Reader(catalog, acceptLanguage: request.headers[.acceptLanguage])
        var response = try await Catalogs.$reader.withValue(reader) {
            try await next(request, context)
        }
        // Caches must not give one person's language to another.
        response.headers[values: .vary].append("Accept-Language")
        return response
    }
}

/// Once the person is known, their own setting outranks their browser's; and the language they first act in is
/// kept, for the letters that reach them where no browser says which they read.
package struct PersonLanguageMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let catalogs: Catalogs
    package let users: UserStore?

    package init(catalogs: Catalogs, users: UserStore? = nil) {
        self.catalogs = catalogs
        self.users = users
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let language = context.user?.language, let catalog = catalogs.byLanguage[language] {
            Catalogs.reader.catalog = catalog
        }
        var context = context
        context.reader = Catalogs.reader
        let response = try await next(request, context)
        // Kept once the person has done something in it: a refused request changes nothing, this included.
        if let user = context.user, user.firstLanguage == nil, let users, response.status.code < 400,
            let language = Catalogs.keptLanguage()
        {
            do {
                try await users.keepFirstLanguage(language, of: user.id)
            } catch {
                // A letter's language is not worth failing the answer over: the next request tries again.
                context.logger.warning("The first language was not kept: \(error)", metadata: ["user": "\(user.id)"])
            }
        }
        return response
    }
}
