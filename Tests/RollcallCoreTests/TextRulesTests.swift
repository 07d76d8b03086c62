import Testing

@testable import RollcallCore

@Suite("Text rules", .timeLimit(.minutes(5)))
struct TextRulesTests {
    @Test(arguments: [
        "\u{0}Mallory", "Mall\u{0}ory", "Esc\u{1B}[31m", "Bell\u{7}", "Del\u{7F}", "Line\u{2028}sep", "C1\u{85}x",
    ])
    func control_characters_are_refused_everywhere(_ text: String) {
        #expect(throws: RuleViolation.self) { try TextRules.plain(text, field: "name") }
        #expect(throws: RuleViolation.self) { try TextRules.plain(text, field: "about", multiline: true) }
        #expect(throws: RuleViolation.self) { try AccountRules.name(text) }
        #expect(throws: RuleViolation.self) { try AccountRules.password(text + "long enough") }
    }

    @Test func line_breaks_and_tabs_only_in_text_of_several_lines() throws {
        #expect(try TextRules.plain("One\nTwo\tThree", field: "about", multiline: true) == "One\nTwo\tThree")
        #expect(throws: RuleViolation(field: "reason", message: Phrase(stringLiteral: TextRulesTests.controlMessage))) {
            try TextRules.plain("One\tTwo", field: "reason")
        }
        #expect(try TextRules.plain("Zoë Ångström 日本 🙂", field: "name") == "Zoë Ångström 日本 🙂")
    }

    @Test func a_search_is_trimmed_bounded_and_empty_means_none() throws {
        #expect(try TextRules.search(nil) == nil)
        #expect(try TextRules.search("   ") == nil)
        #expect(try TextRules.search("  ada ") == "ada")
        #expect(try TextRules.search(String(repeating: "a", count: 100)) != nil)
        #expect(throws: RuleViolation.self) { try TextRules.search(String(repeating: "a", count: 101)) }
        #expect(throws: RuleViolation.self) { try TextRules.search("a\u{0}") }
        #expect((try? TextRules.search(String(repeating: "%", count: 50_000))) == nil)
    }

    static let controlMessage =
        "This text has an invisible control character (such as a NUL). Type it again without it."
}
