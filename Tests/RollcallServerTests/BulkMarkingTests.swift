import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Marking many at once", .timeLimit(.minutes(2)))
struct BulkMarkingTests {
    /// A room where Cass checked in; Ada and Ben have not.
    static func room(_ api: API) async throws -> (Classroom, ada: Account, ben: Account) {
        let room = try await Classroom.open(api)
        let ada = try await room.enrol(api, "Ada Absent")
        let ben = try await room.enrol(api, "Ben Behind")
        #expect(try await room.checkIn(api, room.student).status == .created)
        return (room, ada, ben)
    }

    @Test func everyone_not_checked_in_is_marked_absent_and_the_change_undone_as_one() async throws {
        try await withServer { api in
            let (room, ada, ben) = try await Self.room(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            let marked = try await api.call(
                .post, path, as: room.teacher,
                json: ["filter": "not_checked_in", "status": "absent", "reason": "Left before the register"])
            #expect(marked.status == .created, "\(marked.text)")
            #expect(marked.int("batch.changed") == 2)
            let batch = try #require(marked.int("batch.id"))
            var rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[ada.id]?.0 == "absent" && rows[ben.id]?.0 == "absent")
            #expect(rows[room.student.id]?.0 == "present", "a student checked in is left as they are")
            let audit = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher)
            #expect(audit.list("entries").filter { $0["batchId"] as? Int == Int(batch) }.count == 2)

            let undone = try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
            #expect(undone.status == .ok, "\(undone.text)")
            #expect(undone.string("batch.undoneAt") != nil)
            rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[ada.id] == nil && rows[ben.id] == nil, "both are 'not yet' again")
            #expect(rows[room.student.id]?.0 == "present")
            // The undo is in the audit log too, with no new status: the record went.
            let after = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher)
            let cleared = after.list("entries").filter { $0["newStatus"] == nil }
            #expect(cleared.count == 2, "\(after.text)")
            try await api.expectRefused(
                .post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher, status: .conflict,
                code: "already_undone")
        }
    }

    @Test func the_session_page_lists_recent_changes_with_undo_on_the_newest_after_a_reload() async throws {
        try await withServer { api in
            let (room, ada, ben) = try await Self.room(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            let first = try await api.call(
                .post, path, as: room.teacher,
                json: ["studentIds": [ada.id], "status": "excused", "reason": "Field trip"])
            let second = try await api.call(
                .post, path, as: room.teacher, json: ["studentIds": [ben.id], "status": "absent"])
            let (firstID, secondID) = (try #require(first.int("batch.id")), try #require(second.int("batch.id")))
            func undoForms() async throws -> [Int64] {
                let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
                return page.text.matches(of: /data-api="POST \/api\/v1\/attendance-batches\/(\d+)\/undo"/)
                    .compactMap { Int64($0.1) }
            }
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(
                page.text.contains("1 student marked absent")
                    && page.text.contains("1 student marked excused — “Field trip”"))
            #expect(try await undoForms() == [secondID], "only the newest can be undone")

            _ = try await api.call(.post, "/api/v1/attendance-batches/\(secondID)/undo", as: room.teacher)
            #expect(try await undoForms() == [firstID], "then the one before")
            #expect(
                try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher).text.contains("· undone "))

            // The undo cleared Ben's record: the student's own page shows the change without an empty quote.
            let own = try await api.call(.get, "/sessions/\(room.sessionID)", as: ben)
            #expect(own.text.contains("absent → <strong>not yet</strong>") && !own.text.contains("“”"), "\(own.text)")
        }
    }

    @Test func marking_again_when_nobody_is_left_does_not_stand_in_the_way_of_undo() async throws {
        try await withServer { api in
            let (room, ada, ben) = try await Self.room(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            let body: [String: Any] = ["filter": "not_checked_in", "status": "absent"]
            let first = try await api.call(.post, path, as: room.teacher, json: body)
            #expect(first.int("batch.changed") == 2)
            let again = try await api.call(.post, path, as: room.teacher, json: body)
            #expect(again.status == .created && again.int("batch.changed") == 0, "\(again.text)")
            let batch = try #require(first.int("batch.id"))
            let undone = try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
            #expect(undone.status == .ok, "the empty change is not a later one: \(undone.text)")
            let rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[ada.id] == nil && rows[ben.id] == nil)
        }
    }

    @Test func a_selection_is_excused_and_undone_back_to_each_ones_status() async throws {
        try await withServer { api in
            let (room, ada, _) = try await Self.room(api)
            let marked = try await api.call(
                .post, "/api/v1/sessions/\(room.sessionID)/attendance", as: room.teacher,
                json: ["studentIds": [ada.id, room.student.id], "status": "excused", "note": "Doctor's letter seen"])
            #expect(marked.int("batch.changed") == 2, "\(marked.text)")
            let batch = try #require(marked.int("batch.id"))
            // The note is the teacher's: the student's own record does not show it.
            let own = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: room.student)
            #expect(!own.text.contains("Doctor"), "\(own.text)")
            #expect(
                !(try await api.call(.get, "/sessions/\(room.sessionID)", as: room.student)).text.contains("Doctor"))
            let teacherPage = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(
                teacherPage.text.contains("Doctor's letter seen")
                    || teacherPage.text.contains("Doctor&#39;s letter seen"))

            _ = try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
            let rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[room.student.id]?.0 == "present", "back to the status before the change")
            #expect(rows[ada.id] == nil)
        }
    }

    @Test func a_change_is_not_undone_over_a_later_one() async throws {
        try await withServer { api in
            let (room, ada, ben) = try await Self.room(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            let first = try #require(
                try await api.call(
                    .post, path, as: room.teacher, json: ["studentIds": [ada.id, ben.id], "status": "absent"]
                ).int("batch.id"))
            let second = try #require(
                try await api.call(.post, path, as: room.teacher, json: ["studentIds": [ben.id], "status": "late"])
                    .int("batch.id"))
            try await api.expectRefused(
                .post, "/api/v1/attendance-batches/\(first)/undo", as: room.teacher, status: .conflict,
                code: "not_latest")
            #expect(
                try await api.call(.post, "/api/v1/attendance-batches/\(second)/undo", as: room.teacher).status == .ok)
            // Ada corrected by hand since: the first change can no longer be undone as a whole.
            #expect(try await api.mark(room, session: room.sessionID, student: ada.id, "excused").status == .ok)
            try await api.expectRefused(
                .post, "/api/v1/attendance-batches/\(first)/undo", as: room.teacher, status: .conflict,
                code: "changed_since")
        }
    }

    @Test func bad_bulk_changes_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let (room, ada, _) = try await Self.room(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            let teacher = room.teacher
            let stranger = try await api.register("Stan Stranger")
            let refusals: [([String: Any], HTTPResponse.Status, String)] = [
                (["studentIds": [ada.id], "status": "gone"], .badRequest, "invalid_status"),
                (["studentIds": [Int64](), "status": "absent"], .badRequest, "invalid_student_ids"),
                (["studentIds": [ada.id, ada.id], "status": "absent"], .badRequest, "invalid_student_ids"),
                (["studentIds": [ada.id, stranger.id], "status": "absent"], .notFound, "student_not_found"),
                (["filter": "everyone", "status": "absent"], .badRequest, "invalid_filter"),
                (["status": "absent"], .badRequest, "missing_field"),
                (
                    ["studentIds": [ada.id], "filter": "not_checked_in", "status": "absent"], .badRequest,
                    "missing_field"
                ),
                (
                    ["studentIds": [ada.id], "status": "absent", "note": String(repeating: "n", count: 501)],
                    .badRequest,
                    "invalid_note"
                ),
                (
                    ["studentIds": [ada.id], "status": "absent", "reason": "bad\u{7}bell"], .badRequest,
                    "invalid_reason"
                ),
            ]
            for (body, status, code) in refusals {
                try await api.expectRefused(.post, path, as: teacher, json: body, status: status, code: code)
            }
            try await api.expectRefused(
                .post, path, as: room.student, json: ["filter": "not_checked_in", "status": "absent"],
                status: .forbidden, code: "forbidden")
            let batch = try #require(
                try await api.call(.post, path, as: teacher, json: ["studentIds": [ada.id], "status": "absent"])
                    .int("batch.id"))
            try await api.expectRefused(
                .post, "/api/v1/attendance-batches/\(batch)/undo", as: room.student, status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .post, "/api/v1/attendance-batches/999999/undo", as: teacher, status: .notFound,
                code: "batch_not_found")
        }
    }
}
