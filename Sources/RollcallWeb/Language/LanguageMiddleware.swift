import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWords

/// Chooses the language each request is answered in, from the browser's `Accept-Language` and the school's default,
/// and puts its reader in the request's context; placed before the error middleware, so that a refusal is said in it
/// too.
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
        var context = context
        context.reader = Reader(catalog, acceptLanguage: request.headers[.acceptLanguage])
        var response = try await next(request, context)
        // Caches must not give one person's language to another.
        response.headers[values: .vary].append("Accept-Language")
        return response
    }
}

/// Once the person is known, their own setting outranks their browser's; and the language they first act in is
/// kept, for the letters that reach them where no browser says which they read. A failure past this point leaves
/// with the person's reader (`ReaderBoundError`), as the error middleware, outside, only knows the browser's.
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
        var context = context
        if let language = context.user?.language, let catalog = catalogs.byLanguage[language] {
            context.reader = Reader(catalog, acceptLanguage: context.reader.acceptLanguage)
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            throw ReaderBoundError(error, reader: context.reader)
        }
        // Kept once the person has done something in it: a refused request changes nothing, this included.
        if let user = context.user, user.firstLanguage == nil, let users, response.status.code < 400,
            let language = context.reader.keptLanguage
        {
            await users.keepFirstLanguageLater(language, of: user.id, logger: context.logger)
        }
        return response
    }
}

/// A failure with the reader it is to be said to: the person's, which only the steps after `PersonLanguageMiddleware`
/// know. The error middleware answers the failure inside, in that reader's language.
package struct ReaderBoundError: HTTPResponseError {
    package let error: any Error
    package let reader: Reader

    package init(_ error: any Error, reader: Reader) {
        // A failure bound twice keeps the innermost reader, the one that knew the most about the person.
        if let bound = error as? ReaderBoundError {
            self = bound
        } else {
            self.error = error
            self.reader = reader
        }
    }

    package var status: HTTPResponse.Status { ErrorMiddleware.appError(for: error).status }

    /// Answered where no error middleware is (a WebSocket upgrade decided by the router): in the person's language.
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        try ErrorMiddleware.appError(for: error).response(to: reader)
    }
}
