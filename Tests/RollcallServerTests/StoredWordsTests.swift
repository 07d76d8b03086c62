import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Words Rollcall makes and stores are said in each reader's language when read, not in the creator's.
@Suite(.timeLimit(.minutes(5))) struct StoredWordsTests {
    @Test func a_default_session_title_is_said_in_the_readers_language() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let created = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: [String: String]())
            let id = try #require(created.int("session.id"))
            #expect(created.string("session.title")?.hasPrefix("Session of ") == true, "\(created.text)")
            let french = try await api.call(
                .get, "/api/v1/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "fr"])
            #expect(french.string("session.title")?.hasPrefix("Séance du ") == true, "\(french.text)")
            let german = try await api.call(.get, "/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "de"])
            #expect(german.text.contains("Termin vom "), "the page too")
            // A title the teacher types replaces it, in every language.
            _ = try await api.call(.patch, "/api/v1/sessions/\(id)", as: teacher, json: ["title": "Labo 2"])
            let typed = try await api.call(
                .get, "/api/v1/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "fr"])
            #expect(typed.string("session.title") == "Labo 2", "\(typed.text)")
        }
    }

    static let french = Catalogs.shipped["fr"]

    @Test func the_shared_phone_flag_is_said_in_the_teachers_language() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let borrower = try await room.enrol(api, "Bo Borrower")
            #expect(try await room.checkIn(api, room.student, device: "phone-of-cass").status == .created)
            let english = FlagWords.sharedPhone(student: "Bo Borrower", owner: "Cass Checkin")
            let french = Self.french.say(english)
            #expect(french != english.description && french.contains("Bo Borrower"), "\(french)")
            let fr: HTTPFields = [.acceptLanguage: "fr"]
            try await api.watch(room.sessionID, as: room.teacher, headers: fr) { view in
                _ = try await view.next("snapshot")
                #expect(try await room.checkIn(api, borrower, device: "phone-of-cass").status == .conflict)
                var event = try await view.next()
                while event.string("kind") != "flagged" { event = try await view.next() }
                #expect(event.string("data.detail") == french, "the live event: \(event.text)")
            }
            try await api.watch(room.sessionID, as: room.teacher, headers: fr) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.list("flags").first?["detail"] as? String == french, "\(snapshot.text)")
            }
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.list("flags").first?["detail"] as? String == english.description, "English still")
            }
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher, headers: fr)
            #expect(page.text.contains(Self.escaped(french)), "the session page")
        }
    }

    @Test func flags_stored_in_english_before_read_in_the_readers_language() {
        let older = [
            "Ann Early tried to check in from the phone Ben Away used in this session.",
            "Ann Early tried to check in 111 m from the room.",
            "Ann Early tried to check in, but the phone placed them only within a wide area.",
            "Ann Early's passkey “Pixel” counted backwards: it may have been copied.",
        ]
        for english in older {
            let phrase = FlagWords.reading(english)
            #expect(phrase.description == english, "read back into its phrase")
            #expect(Self.french.say(phrase) != english && Self.french.say(phrase).contains("Ann Early"))
        }
        let unknown = "Something Rollcall once wrote."
        #expect(Self.french.say(FlagWords.reading(unknown)) == unknown, "other text is shown as it is")
        let staff = CourseAuditWords.reading("Ann Other (teacher)")
        #expect(Self.french.say(staff) == "Ann Other (enseignant)", "a colleague removed")
    }

    @Test func audit_lines_are_said_in_the_readers_language() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            _ = try await room.enrol(api, "Ada Absent")
            #expect(try await room.checkIn(api, room.student).status == .created)
            let marked = try await api.call(
                .post, "/api/v1/sessions/\(room.sessionID)/attendance", as: room.teacher,
                json: ["filter": "not_checked_in", "status": "absent"])
            let batch = try #require(marked.int("batch.id"), "\(marked.text)")
            _ = try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
            let fr: HTTPFields = [.acceptLanguage: "fr"]
            let undone = Self.french.text("Undone: the change of {0} to {1}.")
            let start = String(undone[..<undone.range(of: "{")!.lowerBound])
            #expect(!start.isEmpty && !start.hasPrefix("Undone"), "\(undone)")
            let log = try await api.call(
                .get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher, headers: fr)
            let reasons = log.list("entries").compactMap { $0["reason"] as? String }
            #expect(reasons.first?.hasPrefix(start) == true, "the record's audit: \(log.text)")
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher, headers: fr)
            #expect(page.text.contains(Self.escaped(start)), "the session page's audit log")

            let deleted = try await api.call(
                .delete, "/api/v1/sessions/\(room.sessionID)?records=1", as: room.teacher)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            let audit = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/audit", as: room.teacher, headers: fr)
            let detail = try #require(audit.list("entries").first?["detail"] as? String, "\(audit.text)")
            let records = Self.french.say(.counting(1, one: "{0} attendance record", other: "{0} attendance records"))
            #expect(detail.contains(records) && !detail.contains(" with "), "the course's audit: \(detail)")
            let english = try await api.call(.get, "/api/v1/courses/\(room.courseID)/audit", as: room.teacher)
            let said = english.list("entries").first?["detail"] as? String
            #expect(said?.contains("with 1 attendance record") == true, "English still: \(english.text)")
        }
    }

    /// Text as a page writes it.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
