import Foundation
import Hummingbird
import Mustache
import NIOConcurrencyHelpers
import RollcallCore
import RollcallModel
import RollcallWords

/// Renders server-side pages: a page template inside the shared layout, in the reader's language.
package struct PageRenderer: Sendable {
    /// The templates of each language, their marked sentences already translated.
    package let libraries: [String: MustacheLibrary]
    /// The page scripts' sentences in each language, as the JSON `words.js` reads from the page.
    package let scriptWords: [String: String]
    /// Who may show Rollcall's pages in a frame: nobody, or the registered learning platforms.
    package var framing = FrameAncestors()
    /// The origin of `ROLLCALL_PUBLIC_URL`, the only one whose pages the live sockets accept: a page opened at another
    /// address (127.0.0.1 for localhost) compares it with its own and says which to open.
    package var publicOrigin = ""

    /// The shipped templates in the shipped languages, translated once per process: every server a process starts
    /// (the tests start hundreds) shares them.
    package static func loadShipped() throws -> PageRenderer { try shippedOnce.get() }

    private static let shippedOnce = Result { try load(catalogs: try Catalogs.loadShipped()) }

    /// The templates shipped as package resources, so the binary runs from any working directory.
    package static func load(catalogs: Catalogs) throws -> PageRenderer {
        let directory = ResourceFiles.path("templates")
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }
        } catch {
            throw ConfigurationError(variable: "resources", problem: "have no page templates at \(directory)")
        }
        guard names.contains("layout.mustache") else {
            throw ConfigurationError(variable: "resources", problem: "are missing from the build: no page templates")
        }
        let sources = try names.map { name in
            (
                name: String(name.dropLast(".mustache".count)),
                text: try String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
            )
        }
        var libraries: [String: MustacheLibrary] = [:]
        var scriptWords: [String: String] = [:]
        let scriptMessages = catalogs.messages.filter { $0.references.contains { $0.contains(".js") } }
        for language in catalogs.languages {
            let catalog = catalogs[language]
            var library = MustacheLibrary()
            for source in sources {
                try library.register(TemplateText.translated(source.text, into: catalog), named: source.name)
            }
            libraries[language] = library
            var words: [String: [String]] = [:]
            for message in scriptMessages where catalog.translates(message.msgid, context: message.context) {
                // Keyed as gettext joins a context to its message; words.js looks them up alike.
                let key = message.context.map { "\($0)\u{4}\(message.msgid)" } ?? message.msgid
                words[key] = catalog.forms(message.msgid, context: message.context)
            }
            let json = try JSONSerialization.data(withJSONObject: words, options: [.sortedKeys])
            // A sentence holding "</script>" must not end the element it is written in.
            scriptWords[language] = String(decoding: json, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
        }
        return PageRenderer(libraries: libraries, scriptWords: scriptWords)
    }

    /// The templates in the reader's language.
    private func library(for reader: Reader) -> MustacheLibrary {
        libraries[reader.language] ?? libraries["en"]!
    }

    /// The static files (styles, scripts, icons), served under `/assets`.
    package static var assetsDirectory: String {
        ResourceFiles.path("static")
    }

    /// A whole HTML page: the model drawn by its template, inside the layout with the person's navigation.
    /// `zone`: how the page writes moments, which its scripts follow too: a course's pages in the course's zone; by
    /// default the signed-in person's. `framing`: `.launch` for the pages a learning platform's launch leads to, which
    /// the registered platforms may show in a frame; every other page refuses every frame.
    package func render(
        _ model: some PageModel, title: Phrase, context: AppRequestContext, status: HTTPResponse.Status = .ok,
        layout: String = "layout", zone: TimeText? = nil, framing pageFraming: PageFraming = .none
    ) throws -> Response {
        let template = type(of: model).template
        let reader = context.reader
        let library = library(for: reader)
        guard let body = library.render(model, withTemplate: template) else {
            throw AppError(.internalServerError, .internalError, "The page \(template) is missing.")
        }
        let language = reader.language
        let frame = Frame(
            title: reader.say(title), body: body, language: language, words: scriptWords[language] ?? "{}",
            csvSeparator: reader.csvSeparator, publicOrigin: publicOrigin, csrf: context.identity?.csrf ?? "",
            timeZone: (zone ?? context.user?.timeText(in: reader)
                ?? TimeText(zoneIdentifier: CourseTimeZone.serverDefault)).zone.identifier,
            zoneUnset: context.user.map { $0.timeZone == nil } ?? false,
            zoneNote: zone.flatMap {
                ZoneNote.text(
                    page: $0, reader: context.user?.timeZone.flatMap { TimeZone(identifier: $0) }, in: reader)
            },
            user: context.user.map {
                Frame.Person(
                    name: $0.name, role: $0.role.rawValue, isAdmin: $0.role == .admin,
                    isHealthOfficer: $0.healthOfficer)
            }
        )
        let html = library.render(frame, withTemplate: layout) ?? body
        let ancestors = pageFraming == .launch ? framing.value : "'none'"
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; frame-ancestors \(ancestors)",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    /// A friendly page for a failed request, with the same words the API would give.
    /// The error as a page, with the error's own headers (`Allow`, `Retry-After`) as its JSON answer has them.
    /// `path`: the address asked for; an error on a page a launch leads to may show in the platform's frame, as the
    /// page would have.
    package func errorPage(_ error: AppError, context: AppRequestContext, path: String = "") throws -> Response {
        var response = try render(
            ErrorPage(status: error.status.code, message: error.message(to: context.reader), code: error.code),
            title: "Rollcall",
            context: context, status: error.status, framing: PageFraming.of(path: path))
        for field in error.headers { response.headers[field.name] = field.value }
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

/// What a page shows; the template of the same name draws it.
package protocol PageModel: Sendable {
    /// The template's name, without `.mustache`.
    static var template: String { get }
}

/// The layout around every page: its title, the page itself, and who is signed in.
package struct Frame: Sendable {
    package struct Person: Sendable {
        package var name: String
        package var role: String
        package var isAdmin: Bool
        package var isHealthOfficer: Bool

        package init(name: String, role: String, isAdmin: Bool, isHealthOfficer: Bool) {
            self.name = name
            self.role = role
            self.isAdmin = isAdmin
            self.isHealthOfficer = isHealthOfficer
        }
    }

    package var title: String
    package var body: String
    /// The page's language, for `lang` on `<html>`.
    package var language: String
    /// The page scripts' sentences in that language (JSON).
    package var words: String
    /// The separator the reader's spreadsheets expect, which the page's CSV links ask for.
    package var csvSeparator: String
    /// Where Rollcall's pages are meant to be opened, as the live sockets' origin check knows it.
    package var publicOrigin: String
    package var csrf: String
    /// The zone the page's moments are written in, for its scripts.
    package var timeZone: String
    /// The signed-in person has no zone yet: the page's script sends the browser's.
    package var zoneUnset: Bool
    /// On a course's pages, for a reader in another zone: which zone the times are in, with both clocks.
    package var zoneNote: String?
    package var user: Person?
}

/// A failed request, in the same words the API would give.
package struct ErrorPage: PageModel {
    package static let template = "error"
    package var status: Int
    package var message: String
    package var code: String
}

/// Who may show a page in a frame: nobody, or, for the pages a learning platform's launch leads to, the registered
/// platforms.
package enum PageFraming: Sendable, Equatable {
    case none
    case launch

    /// The pages a launch leads to: the launch itself and its link and choice pages, the course list (a launch
    /// outside a course), a course, its sessions and the check-in. The admin's, the profile and every other page
    /// stay out of every frame.
    package static let launchPages: [RouterPath] = [
        LearningPlatformRoutes.login, LearningPlatformRoutes.launch, LearningPlatformRoutes.continuation,
        LearningPlatformRoutes.register, LearningPlatformRoutes.linkPage, LearningPlatformRoutes.coursePage,
        CourseRoutes.coursesPage, CourseRoutes.coursePage, SessionRoutes.sessionPage, CheckInRoutes.scan,
        CheckInRoutes.scanUpperCase, CheckInRoutes.checkInPage,
    ]

    /// How a page at `path` is framed: as a launch's page when it is one of `launchPages` (whose parameters read
    /// `{name}`).
    package static func of(path: String) -> PageFraming {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        let matches = launchPages.contains { route in
            let pattern = route.description.split(separator: "/", omittingEmptySubsequences: true)
            return pattern.count == parts.count
                && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
        return matches ? .launch : .none
    }
}
