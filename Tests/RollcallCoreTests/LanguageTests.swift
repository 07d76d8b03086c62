import Foundation
import Testing

@testable import RollcallCore

/// Catalogs, plural rules, the choice of language, phrases, templates and the pseudo-locale.
@Suite("Languages", .timeLimit(.minutes(5)))
struct LanguageTests {
    static let french = """
        # A translator's comment.
        msgid ""
        msgstr ""
        "Language: fr\\n"
        "Plural-Forms: nplurals=2; plural=(n > 1);\\n"
        "X-Language-Name: Français\\n"

        #: templates/course.mustache:3
        msgid "Sign in"
        msgstr "Se connecter"

        msgid "Line {0} is empty."
        msgstr "La ligne {0} est vide."

        msgid "{0} student"
        msgid_plural "{0} students"
        msgstr[0] "{0} étudiant"
        msgstr[1] "{0} étudiants"

        #, fuzzy
        msgid "Open"
        msgstr "Ouvrir"

        msgid "Untranslated"
        msgstr ""

        msgid "A long "
        "sentence"
        msgstr "Une longue "
        "phrase avec \\"guillemets\\"\\net une ligne"

        msgctxt "state"
        msgid "Open"
        msgstr "Ouverte"
        """

    @Test func a_po_file_is_read_as_translators_tools_write_it() throws {
        let catalog = try Catalog(po: Self.french)
        #expect(catalog.language == "fr" && catalog.name == "Français")
        #expect(catalog.text("Sign in") == "Se connecter")
        #expect(catalog.text("A long sentence") == "Une longue phrase avec \"guillemets\"\net une ligne")
        #expect(catalog.text("Open", context: "state") == "Ouverte")
        // Fuzzy and empty entries are not translations: the English stands, as with msgfmt.
        #expect(catalog.text("Open") == "Open" && !catalog.translates("Open"))
        #expect(catalog.text("Untranslated") == "Untranslated")
        #expect(catalog.text("Never heard of") == "Never heard of")
    }

    @Test func phrases_keep_their_values_apart_and_are_said_in_the_catalogs_language() throws {
        let catalog = try Catalog(po: Self.french)
        let line = 3
        let phrase: Phrase = "Line \(line) is empty."
        #expect(phrase.key == "Line {0} is empty." && phrase.values == [.number(3)])
        #expect(phrase.description == "Line 3 is empty.")
        #expect(catalog.say(phrase) == "La ligne 3 est vide.")
        // French says 0 and 1 in the singular; English only 1.
        #expect(catalog.say(.counting(0, one: "{0} student", other: "{0} students")) == "0 étudiant")
        #expect(catalog.say(.counting(1, one: "{0} student", other: "{0} students")) == "1 étudiant")
        #expect(catalog.say(.counting(1_234, one: "{0} student", other: "{0} students")) == "1\u{A0}234 étudiants")
        #expect(Catalog.english.say(.counting(0, one: "{0} student", other: "{0} students")) == "0 students")
        #expect(Catalog.english.say(.counting(1, one: "{0} student", other: "{0} students")) == "1 student")
        // Inner phrases are said too; verbatim text and names never are.
        let inner: Phrase = "Sign in"
        #expect(catalog.say("Line \(inner) is empty.") == "La ligne Se connecter est vide.")
        #expect(("Line \(line) is empty." as Phrase) == "Line 3 is empty.")
        #expect(catalog.say(.verbatim("Sign in")) == "Sign in")
        let name = "Line {0}"
        #expect(catalog.say("\(name)") == "Line {0}")
    }

    @Test func a_placeholder_without_a_value_and_braces_that_are_no_placeholder_stay_as_written() {
        #expect(
            Catalog.fill("send {\"choice\": index} or {7} or {") { _ in nil } == "send {\"choice\": index} or {7} or {")
        #expect(Catalog.fill("{1} before {0}") { ["a", "b"][$0] } == "b before a")
    }

    @Test func broken_po_files_are_refused_with_their_line() {
        let cases: [(String, Int)] = [
            ("msgid \"x\"\nmsgstr \"y\"", 2),  // no header
            ("msgid \"\"\nmsgstr \"Language: fr\\n\"\n", 3),  // no plural rule
            ("msgid \"\"\nmsgstr \"Plural-Forms: nplurals=2; plural=n>1;\\n\"\n", 3),  // no language
            ("msgid \"\"\nmsgstr \"\"\n\nmsgid \"a\nmsgstr \"b\"", 4),  // unclosed quote
            ("msgid \"\"\nmsgstr \"\"\n\nmsgid \"a\\q\"\nmsgstr \"b\"", 4),  // unknown escape
            ("msgid \"\"\nmsgstr \"\"\n\nmsgfoo \"a\"", 4),  // unknown keyword
            ("msgid \"\"\nmsgstr \"\"\n\n\"dangling\"", 4),  // a continuation of nothing
        ]
        for (text, line) in cases {
            #expect(throws: CatalogError.self) { try Catalog(po: text) }
            do {
                _ = try Catalog(po: text)
            } catch {
                #expect(error.line <= line)
            }
        }
    }

    @Test func plural_rules_of_gettext_headers() throws {
        let french = try #require(PluralRule(header: "nplurals=2; plural=(n > 1);"))
        #expect((0...3).map(french.form) == [0, 0, 1, 1])
        #expect((0...2).map(PluralRule.english.form) == [1, 0, 1])
        // Russian: three forms, with && and || and %.
        let russian = try #require(
            PluralRule(
                header:
                    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
            ))
        #expect([1, 2, 5, 11, 21, 22, 25, 111, 112].map(russian.form) == [0, 1, 2, 2, 0, 1, 2, 2, 2])
        // Arabic: six forms.
        let arabic = try #require(
            PluralRule(
                header:
                    "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;"
            ))
        #expect([0, 1, 2, 3, 11, 100].map(arabic.form) == [0, 1, 2, 3, 4, 5])
        // A rule that answers outside its forms is held to the last; one that cannot be read is none.
        #expect(PluralRule(header: "nplurals=2; plural=n;")?.form(for: 7) == 1)
        for broken in [
            "nplurals=2; plural=(n > 1", "plural=(n > 1);", "nplurals=0; plural=0;", "nplurals=2; plural=n >;",
        ] {
            #expect(PluralRule(header: broken) == nil, "\(broken)")
        }
    }

    @Test func the_language_is_the_persons_then_the_browsers_then_the_schools() {
        let available = ["de", "en", "en-XA", "es", "fr"]
        #expect(
            LanguageChoice.preferences(acceptLanguage: "fr-CA, fr;q=0.9, en;q=0.8, de;q=0") == ["fr-CA", "fr", "en"])
        #expect(LanguageChoice.preferences(acceptLanguage: "es;q=0.5, de") == ["de", "es"])
        #expect(LanguageChoice.preferences(acceptLanguage: "<script>, ;q=1, x;q=abc") == [])
        func choose(_ setting: String?, _ header: String?, _ fallback: String = "en") -> String {
            LanguageChoice.choose(setting: setting, acceptLanguage: header, fallback: fallback, available: available)
        }
        #expect(choose("de", "fr") == "de")
        #expect(choose(nil, "fr-CA,en;q=0.5") == "fr")
        #expect(choose(nil, "pt-BR, ja") == "en")
        #expect(choose(nil, "pt-BR", "es") == "es")
        #expect(choose(nil, nil, "fr") == "fr")
        // A regional English never lands on the pseudo-locale; asking for it by name does.
        #expect(choose(nil, "en-US") == "en")
        #expect(choose(nil, "en-XA") == "en-XA")
        #expect(choose("xx", "de") == "de")
        #expect(choose(nil, "EN-gb") == "en")
    }

    @Test func templates_mark_their_sentences_and_are_translated_once() throws {
        let catalog = try Catalog(po: Self.french)
        let template = "<h1>{{#t}}Sign\n   in{{/t}}</h1><p>{{#t}}{{count}} students{{/t}} {{name}}</p>{{#t}}unclosed"
        #expect(TemplateText.messages(in: template) == ["Sign in", "{{count}} students"])
        #expect(
            TemplateText.translated(template, into: catalog)
                == "<h1>Se connecter</h1><p>{{count}} students {{name}}</p>{{#t}}unclosed")
    }

    @Test func words_with_two_meanings_are_said_in_the_one_their_context_names() throws {
        let catalog = try Catalog(
            po: Self.french + """

                msgid "Mark"
                msgstr "Marquer"

                msgctxt "quiz"
                msgid "Mark"
                msgstr "Noter"

                msgctxt "attendance"
                msgid "Mark"
                msgstr "Pointer"

                msgctxt "count"
                msgid "present"
                msgid_plural "present"
                msgstr[0] "présent"
                msgstr[1] "présents"
                """)
        #expect(catalog.say("Mark") == "Marquer")
        #expect(catalog.say(Phrase(key: "Mark").meaning("quiz")) == "Noter")
        #expect(catalog.say(Phrase.counting(24, one: "present", other: "present").meaning("count")) == "présents")
        #expect(catalog.say(Phrase.counting(1, one: "present", other: "present").meaning("count")) == "présent")
        let template = "<button>{{#t:attendance}}Mark{{/t}}</button>{{#title}}{{#t:quiz}}Mark{{/t}}{{/title}}"
        #expect(
            TemplateText.translated(template, into: catalog)
                == "<button>Pointer</button>{{#title}}Noter{{/title}}")
    }

    @Test func a_spreadsheets_separator_follows_the_region_then_the_language() {
        // Mexico writes decimal points: commas between fields. Spain writes decimal commas: semicolons.
        #expect(SpreadsheetStyle.separator(acceptLanguage: "es-MX,es;q=0.9", language: "es") == "comma")
        #expect(SpreadsheetStyle.separator(acceptLanguage: "es-ES,es;q=0.9", language: "es") == "semicolon")
        #expect(SpreadsheetStyle.separator(acceptLanguage: "es-419", language: "es") == "comma")
        #expect(SpreadsheetStyle.separator(acceptLanguage: "de-CH", language: "de") == "comma")
        #expect(SpreadsheetStyle.separator(acceptLanguage: "fr-CA", language: "fr") == "semicolon")
        // No region for the language read: the language's own choice stands.
        #expect(SpreadsheetStyle.separator(acceptLanguage: "es", language: "es") == nil)
        #expect(SpreadsheetStyle.separator(acceptLanguage: "en-US", language: "fr") == nil)
    }

    @Test func the_pseudo_locale_accents_and_lengthens_but_keeps_what_machines_read() {
        let text = PseudoLocale.text("Hello {0}, see <a href=\"/x\">{{name}}</a> &amp; more")
        #expect(text.hasPrefix("[Ĥéļļö {0}, šéé <a href=\"/x\">{{name}}</a> &amp; ɱöŕé "))
        #expect(text.hasSuffix("~]"))
        let english = "Check in to the lecture now"
        #expect(PseudoLocale.text(english).count >= english.count * 13 / 10)
        #expect(PseudoLocale.text("· 42") == "· 42")
        let catalog = PseudoLocale.catalog(keys: [("{0} student", "{0} students", nil)])
        #expect(catalog.say(.counting(2, one: "{0} student", other: "{0} students")).hasPrefix("[2 šţüðéñţš"))
    }
}
