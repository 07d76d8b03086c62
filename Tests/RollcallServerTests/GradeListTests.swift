import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The admin page's list of grades for learning platforms: the ones waiting and the ones given up, by course and
/// person, apart from the outbox's messages, in the reader's language.
@Suite("Grades on the admin page", .timeLimit(.minutes(5)))
struct GradeListTests {
    @Test func grades_waiting_and_given_up_are_listed_apart_from_the_outbox_in_the_readers_language() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let empty = try await api.call(.get, "/admin", as: admin)
            #expect(Self.section("grades", of: empty.text).contains("No grade is waiting, and none has failed."))
            let (_, courseID, _) = try await api.teacherWithCourse()
            let sam = try await api.register("Sam Student")
            let lou = try await api.register("Lou Learner")
            let kim = try await api.register("Kim Sent")
            try await api.database().closing { database in
                let queue = JobQueue(database: database)
                for (account, subject) in [(sam, "s-1"), (lou, "s-2"), (kim, "s-3")] {
                    let payload = JobMigrationTests.score(subject, 80)
                    try await queue.enqueue([
                        try NewJob(ScoreJob.self, payload, courseID: courseID, userID: account.id)
                    ])
                }
                let outcomes: [String: String?] = [
                    "s-1": "the score was refused: HTTP 503 down", "s-2": "the score was refused: HTTP 400 no item",
                    "s-3": nil,
                ]
                while let job = try await queue.claim(kinds: [ScoreJob.name], lease: 60) {
                    let subject = String(job.key.split(separator: " ").last ?? "")
                    guard let error = outcomes[subject] ?? nil else {
                        try await queue.markDone(id: job.id)
                        continue
                    }
                    let retry = subject == "s-1" ? Date().addingTimeInterval(3600) : nil
                    try await queue.markFailed(id: job.id, error: error, retryAt: retry)
                }
            }

            let page = try await api.call(.get, "/admin", as: admin, headers: [.acceptLanguage: "fr"])
            let grades = Self.section("grades", of: page.text)
            #expect(grades.contains("Notes pour les plateformes d’apprentissage"), "\(grades)")
            let rows = grades.matches(of: #/<tr data-status="(\w+)"><td[^>]*>([^<]*)</td><td[^>]*>([^<]*)</td>/#)
                .map { "\($0.1) \($0.2) \($0.3)" }
            #expect(rows == ["failed Biology 101 Lou Learner", "queued Biology 101 Sam Student"], "\(rows)")
            #expect(grades.contains("HTTP 400 no item") && grades.contains("HTTP 503 down"))
            #expect(grades.contains("abandonnée") && grades.contains("prochaine tentative le"), "\(grades)")
            #expect(!grades.contains("Kim Sent"), "a grade sent is not the admin's concern")
            #expect(!Self.section("outbox", of: page.text).contains("line_items"), "the outbox holds messages only")
        }
    }

    /// The admin page's grades list shows each of `students`, waiting with the platform's refusal.
    static func expectListed(
        _ api: API, admin: Account, students: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let page = try await api.call(.get, "/admin", as: admin)
        let grades = section("grades", of: page.text)
        for student in students {
            #expect(grades.contains(student), "\(student) is listed", sourceLocation: sourceLocation)
        }
        #expect(grades.contains("HTTP 503"), "\(grades)", sourceLocation: sourceLocation)
        #expect(!section("outbox", of: page.text).contains("line_items"), sourceLocation: sourceLocation)
    }

    /// The page's `<section>` with id `id`.
    static func section(_ id: String, of page: String) -> String {
        guard let start = page.firstRange(of: "<section class=\"card\" id=\"\(id)\"") else { return "" }
        return String(page[start.lowerBound...]).components(separatedBy: "</section>")[0]
    }
}
