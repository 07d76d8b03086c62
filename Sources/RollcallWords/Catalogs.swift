import Foundation
import RollcallCore

/// Every language Rollcall speaks: English (the words in the code), the PO files in `Resources/locales`, and the
/// pseudo-locale made from the template of all messages (`rollcall.pot`). Adding a language is adding a file.
package struct Catalogs: Sendable {
    /// The catalogs by language tag.
    package let byLanguage: [String: Catalog]
    /// The template's messages: every English sentence Rollcall says, with where it is used.
    package let messages: [POFile.Entry]
    /// The languages a person can choose, English first, then by tag; the pseudo-locale is left out.
    package var choices: [Catalog] {
        let tags = byLanguage.keys.filter { $0 != PseudoLocale.language && $0 != "en" }.sorted()
        return [Catalog.english] + tags.compactMap { byLanguage[$0] }
    }

    /// The tags of every language, the pseudo-locale too; kept, as every request chooses among them.
    package let languages: [String]

    package init(byLanguage: [String: Catalog], messages: [POFile.Entry]) {
        self.byLanguage = byLanguage
        self.messages = messages
        languages = byLanguage.keys.sorted()
    }

    package subscript(language: String) -> Catalog { byLanguage[language] ?? .english }

    /// The catalogs shipped with Rollcall, read once per process: `buildRouter` asks for them with `loadShipped()`,
    /// so that a file that cannot be read stops the server at startup rather than leaving it in English.
    package static var shipped: Catalogs {
        do {
            return try shippedOnce.get()
        } catch {
            // `buildRouter` read them before the first request, so only a process that never checked ends here.
            preconditionFailure("Rollcall's message catalogs cannot be read: \(error)")
        }
    }

    /// The shipped catalogs, or why they cannot be read.
    package static func loadShipped() throws -> Catalogs { try shippedOnce.get() }

    private static let shippedOnce = Result { try load() }

    /// The catalogs shipped as package resources.
    package static func load(directory: String = ResourceFiles.path("locales")) throws -> Catalogs {
        var byLanguage = ["en": Catalog.english]
        var messages: [POFile.Entry] = []
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ConfigurationError(variable: "resources", problem: "have no message catalogs at \(directory)")
        }
        for name in names.sorted() where name.hasSuffix(".po") || name.hasSuffix(".pot") {
            let path = (directory as NSString).appendingPathComponent(name)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            do {
                if name.hasSuffix(".pot") {
                    messages = try POFile(text: text).entries
                } else {
                    let catalog = try Catalog(po: text)
                    byLanguage[catalog.language] = catalog
                }
            } catch {
                throw ConfigurationError(
                    variable: "resources", problem: "has a catalog \(name) that line \(error.line) \(error.problem)")
            }
        }
        if !messages.isEmpty {
            byLanguage[PseudoLocale.language] = PseudoLocale.catalog(
                keys: messages.map { ($0.msgid, $0.msgidPlural, $0.context) })
        }
        return Catalogs(byLanguage: byLanguage, messages: messages)
    }

    /// A language a person asks for on their profile: one Rollcall speaks, or nothing (empty) to follow the browser.
    /// The pseudo-locale is not one: it is for testing pages, and a browser asks for it by name.
    package func chosen(_ language: String) throws -> String? {
        let trimmed = language.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        guard let found = named(trimmed), found != PseudoLocale.language else {
            let names = choices.map { "\($0.language) (\($0.name))" }.joined(separator: ", ")
            throw AppError(
                .badRequest, .invalidLanguage, "Rollcall does not speak “\(trimmed)”. Choose one of \(names).")
        }
        return found
    }

    /// The language of this tag, whatever its case (`FR` is `fr`); a region is not its language here.
    package func named(_ tag: String) -> String? {
        byLanguage.keys.first { $0.lowercased() == tag.lowercased() }
    }

    /// The language for a person: their setting, else their browser's, else the school's default.
    package func choose(setting: String?, acceptLanguage: String?, fallback: String) -> Catalog {
        self[
            LanguageChoice.choose(
                setting: setting, acceptLanguage: acceptLanguage, fallback: fallback, available: languages)]
    }
}

/// Whoever Rollcall speaks to: the catalog of the language they read, and what their browser asked for. A value,
/// made where the language is known (a request's language middleware, a letter's recipient, a course's platform,
/// the command line's environment) and handed to whatever says something to them, so that two readers of one
/// sentence can never be confused by whichever task happens to say it.
package struct Reader: Sendable {
    package let catalog: Catalog
    /// What the browser asked for, whose region says how the reader's spreadsheets read numbers.
    package let acceptLanguage: String?

    package init(_ catalog: Catalog, acceptLanguage: String? = nil) {
        self.catalog = catalog
        self.acceptLanguage = acceptLanguage
    }

    /// English, the words in the code: for what is said where nobody's language is known.
    package static let english = Reader(.english)

    /// The language's tag (`fr`), what `lang` on a page says.
    package var language: String { catalog.language }

    /// How the reader's language writes numbers, dates and names.
    package var locale: Locale { catalog.locale }

    /// Names in the order the reader's language sorts them.
    package var collation: Collation { Collation(locale: catalog.locale) }

    /// The CSV separator the reader's spreadsheets expect: their region's where the browser names one for the
    /// language they read (`es-MX` differs from `es-ES`), else the language's.
    package var csvSeparator: String {
        SpreadsheetStyle.separator(acceptLanguage: acceptLanguage, language: catalog.language) ?? catalog.csvSeparator
    }

    /// The language to keep as the one a person first acted in; never the pseudo-locale, which is for tests.
    package var keptLanguage: String? {
        language == PseudoLocale.language ? nil : language
    }

    /// The phrase in the reader's language.
    package func say(_ phrase: Phrase) -> String {
        catalog.say(phrase)
    }

    /// A counting phrase in the reader's language: `reader.say(3, one: "{0} student", other: "{0} students")`.
    package func say(_ count: Int, one: String, other: String, _ values: Phrase.Value...) -> String {
        say(.counting(count, one: one, other: other, values: values))
    }

    /// Words with two meanings, in the one `context` names (gettext's `msgctxt`), such as "quiz" for "Mark".
    package func say(context: String, _ phrase: Phrase) -> String {
        say(phrase.meaning(context))
    }

    /// A counting phrase in one of its meanings, such as "count" for "present" under a number.
    package func say(context: String, _ count: Int, one: String, other: String, _ values: Phrase.Value...) -> String {
        say(Phrase.counting(count, one: one, other: other, values: values).meaning(context))
    }
}

/// A request context that knows whom it answers, so that an error answered from it is said in their language.
package protocol ReaderContext {
    var reader: Reader { get }
}

/// The command line's language: what its environment names (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
package struct CommandLineLanguage: Sendable {
    /// The tag the environment names, to ask servers for (`Accept-Language`), so that their refusals read the same
    /// way; nil when it names none.
    package let tag: String?
    /// Whom the command line's own sentences are for.
    package let reader: Reader

    package init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        tag = LanguageChoice.tag(environment: environment)
        reader =
            tag.map { Reader(Catalogs.shipped.choose(setting: nil, acceptLanguage: $0, fallback: "en")) } ?? .english
    }

    /// English whatever the environment says: the server's own commands on its console.
    package static let english = CommandLineLanguage([:])
}
