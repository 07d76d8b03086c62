import Testing

@testable import RollcallCore

@Suite("Where to go after signing in", .timeLimit(.minutes(5)))
struct LocalPathTests {
    @Test(arguments: [
        "/courses", "/courses/12", "/check-in/ABC-def_1.2", "/sessions/3?tab=room", "/courses/12#roster",
    ])
    func a_path_on_this_site_is_kept(_ path: String) {
        #expect(LocalPath(path)?.text == path)
    }

    /// What browsers turn into another site: a second slash or a backslash after the first (tab, CR and LF are
    /// dropped from URLs by browsers before they read them), a scheme, or anything that is not a path.
    @Test(arguments: [
        "//evil.example/phish", "/\t/evil.example/phish", "/\r\n/evil.example", "/\\evil.example", "/\t\\evil.example",
        "\\/evil.example", "https://evil.example", "javascript:alert(1)", "evil.example", "", " /courses",
        "/courses\u{0}evil", "/%09/evil.example", "/%2F/evil.example", "/%5Cevil.example", "/\u{7F}/evil",
    ])
    func anything_that_could_leave_the_site_is_refused(_ next: String) {
        #expect(LocalPath(next) == nil, "\(next.debugDescription)")
    }
}
