import Foundation
import RollcallModel
import RollcallWeb
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer

/// The admin's page at a school's size: people in pages, teachers waiting first, and every change an admin makes to
/// someone's account on record.
@Suite("Admin page", .timeLimit(.minutes(5)))
struct AdminPageTests {
    @Test func roles_granted_and_taken_back_are_recorded_with_who_and_when() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let hana = try await api.register("Hana Health")
            let path = "/api/v1/admin/users/\(hana.id)/health-officer"
            #expect(try await api.call(.post, path, as: admin).status == .ok)
            #expect(try await api.call(.post, path, as: admin).status == .ok, "granted twice: recorded once")
            #expect(try await api.call(.delete, path, as: admin).status == .ok)
            _ = try await api.call(.put, "/api/v1/admin/users/\(hana.id)/role", as: admin, json: ["role": "teacher"])
            _ = try await api.call(.post, "/api/v1/admin/users/\(hana.id)/disable", as: admin)
            _ = try await api.call(.post, "/api/v1/admin/users/\(hana.id)/enable", as: admin)

            let page = try await api.call(.get, "/admin", as: admin)
            let changes = try #require(page.text.firstRange(of: "id=\"account-changes\"")).upperBound
            let section = page.text[changes...].components(separatedBy: "</section>")[0]
            let lines = section.matches(of: #/<li>([^<]+) · /#).map { String($0.1) }
            #expect(
                lines == [
                    "Admin enabled Hana Health&#39;s account again", "Admin disabled Hana Health&#39;s account",
                    "Admin made Hana Health a teacher", "Admin removed Hana Health as health officer",
                    "Admin made Hana Health a health officer",
                ], "\(section)")
            // Granting asks first; the page sends people no API paths or raw codes.
            #expect(page.text.contains("data-confirm=\"Make Hana Health a health officer?"))
            #expect(!page.text.contains("Also at") && !page.text.contains("/api/v1/admin/outbox</code>"))
        }
    }

    @Test func a_school_of_people_is_paged_with_teachers_waiting_first() async throws {
        try await withServer(teacherApproval: true) { api in
            let admin = try await api.admin()
            try await api.database().closing { database async throws in
                let users = UserStore(database: database)
                for number in 1...120 {
                    _ = try await users.create(
                        NewUser(
                            name: String(format: "Student %03d", number), email: "s\(number)@school.test",
                            passwordHash: "-", role: .student, studentNumber: nil, approved: true,
                            emailVerified: true))
                }
            }
            _ = try await api.register("Zoe Waiting", role: "teacher")
            let first = try await api.call(.get, "/admin", as: admin)
            #expect(first.text.contains("Page 1 of 3") && first.text.contains("(122)"), "\(first.text.prefix(3000))")
            let rows = first.text.components(separatedBy: "<tr class=").dropFirst()
            #expect(rows.count == AdminPage.peoplePage)
            #expect(rows.first?.contains("Zoe Waiting") == true, "the teacher waiting for approval comes first")
            #expect(first.text.contains("id=\"waiting-teachers\""))
            let last = try await api.call(.get, "/admin?page=3", as: admin)
            #expect(
                last.text.contains("Page 3 of 3") && last.text.contains("rel=\"prev\"")
                    && !last.text.contains("rel=\"next\""))
            let found = try await api.call(.get, "/admin?q=Student%20119", as: admin)
            #expect(
                found.text.components(separatedBy: "<tr class=").count - 1 == 1 && !found.text.contains("people-pager"))
        }
    }
}

@Suite("Page links", .timeLimit(.minutes(5)))
struct PageLinksTests {
    @Test func a_long_list_is_cut_into_pages_with_links_that_keep_the_search() {
        let items = Array(1...120)
        let (first, links) = PageLinks.page(
            items, requested: 1, size: 50, path: "/admin", query: nil, anchor: "people", in: .english)
        #expect(first == Array(1...50) && links?.text == "Page 1 of 3" && links?.previous == nil)
        #expect(links?.next == "/admin?page=2#people")
        let (last, lastLinks) = PageLinks.page(
            items, requested: 9, size: 50, path: "/admin", query: "Ö b", anchor: "p", in: .english)
        #expect(last == Array(101...120), "past the end is the last page")
        #expect(lastLinks?.previous == "/admin?page=2&q=%C3%96%20b#p" && lastLinks?.next == nil)
        let (few, none) = PageLinks.page(
            [1, 2], requested: 0, size: 50, path: "/admin", query: nil, anchor: "p", in: .english)
        #expect(few == [1, 2] && none == nil, "one page needs no links")
        let (empty, nothing) = PageLinks.page(
            [Int](), requested: 1, size: 50, path: "/a", query: nil, anchor: "p", in: .english)
        #expect(empty.isEmpty && nothing == nil)
    }
}
