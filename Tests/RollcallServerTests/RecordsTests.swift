import Foundation
import HTTPTypes
import RollcallCore
import RollcallWeb
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

@Suite("Records", .timeLimit(.minutes(5)))
struct RecordsTests {
    @Test func a_teacher_corrects_a_status_and_the_audit_log_keeps_who_when_old_new_and_why() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let first = try await api.mark(
                room, session: room.sessionID, student: room.student.id, "excused", reason: "  Doctor's note ")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.string("status") == "excused")
            #expect(first.value("changed") as? Bool == true)
            #expect(first.string("audit.reason") == "Doctor's note")
            #expect(first.value("audit.oldStatus") == nil)
            #expect(first.string("audit.changedByName") == "Tess Teacher")

            let second = try await api.mark(room, session: room.sessionID, student: room.student.id, "Late")
            #expect(second.string("audit.oldStatus") == "excused")
            #expect(second.string("audit.newStatus") == "late")
            #expect(second.string("recordedAt") == first.string("recordedAt"), "the first record's time stays")

            let same = try await api.mark(room, session: room.sessionID, student: room.student.id, "late")
            #expect(same.value("changed") as? Bool == false)
            #expect(same.value("audit") == nil, "repeating a status writes no audit entry")

            let log = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher)
            #expect(log.list("entries").map { $0["newStatus"] as? String } == ["late", "excused"])
            #expect(try await api.attendanceRows(session: room.sessionID)[room.student.id]! == ("late", "manual"))

            let own = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: room.student)
            #expect(own.status == .ok, "\(own.text)")
            #expect(own.list("audit").count == 2, "students see every change made to their own record")
            #expect(own.list("sessions").first?["status"] as? String == "late")
        }
    }

    @Test func a_check_in_after_a_manual_mark_repeats_the_marked_status() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.mark(room, session: room.sessionID, student: room.student.id, "excused")
            let ticket = try await room.scan(api, as: room.student)
            let checkIn = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(checkIn.status == .ok)
            #expect(checkIn.string("status") == "excused")
            #expect(try await api.attendanceRows(session: room.sessionID)[room.student.id]! == ("excused", "manual"))
        }
    }

    @Test func bad_status_changes_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/sessions/\(room.sessionID)/attendance/\(room.student.id)"
            try await api.mark(room, session: room.sessionID, student: room.student.id, "present")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["status": "sleeping"], status: .badRequest,
                code: "invalid_status")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["reason": "no status"], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["status": 3], status: .badRequest, code: "wrong_type")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["status": "absent", "reason": String(repeating: "x", count: 501)],
                status: .badRequest, code: "invalid_reason")
            try await api.expectRefused(
                .put, path, as: room.teacher, raw: Array("status=absent".utf8),
                contentType: "application/x-www-form-urlencoded", status: .unsupportedMediaType,
                code: "unsupported_media_type")
            let stranger = try await api.register("Sam Stranger")
            try await api.expectRefused(
                .put, "/api/v1/sessions/\(room.sessionID)/attendance/\(stranger.id)", as: room.teacher,
                json: ["status": "absent"], status: .notFound, code: "student_not_found")
            try await api.expectRefused(
                .put, "/api/v1/sessions/\(room.sessionID)/attendance/999999", as: room.teacher,
                json: ["status": "absent"], status: .notFound, code: "student_not_found")
            try await api.expectRefused(
                .put, "/api/v1/sessions/999999/attendance/\(room.student.id)", as: room.teacher,
                json: ["status": "absent"], status: .notFound, code: "session_not_found")
            try await api.expectRefused(
                .put, path, as: room.student, json: ["status": "present"], status: .forbidden, code: "forbidden")
            let (otherTeacher, _, _) = try await api.teacherWithCourse("Olga Other")
            try await api.expectRefused(
                .put, path, as: otherTeacher, json: ["status": "absent"], status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .put, path, json: ["status": "absent"], status: .unauthorized, code: "not_signed_in")

            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let scheduled = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["scheduledAt": later])
            let scheduledID = try #require(scheduled.int("session.id"))
            try await api.expectRefused(
                .put, "/api/v1/sessions/\(scheduledID)/attendance/\(room.student.id)", as: room.teacher,
                json: ["status": "absent"], status: .conflict, code: "session_not_started")
        }
    }

    @Test func closing_marks_the_missing_absent_only_where_the_course_asks() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
            let joinCode = try #require(course.string("course.joinCode"))
            let other = try await api.register("Ola Other")
            _ = try await api.call(.post, "/api/v1/courses/join", as: other, json: ["code": joinCode])
            let ticket = try await room.scan(api, as: room.student)
            _ = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])

            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            #expect(try await api.attendanceRows(session: room.sessionID).count == 1, "the setting is off by default")

            let patched = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["markAbsentOnClose": true])
            #expect(patched.value("course.markAbsentOnClose") as? Bool == true)
            let next = try await api.pastSession(room, title: "Week 2")
            let rows = try await api.attendanceRows(session: next)
            #expect(rows[room.student.id]! == ("absent", "closed"))
            #expect(rows[other.id]! == ("absent", "closed"))
        }
    }

    @Test func points_and_thresholds_are_checked_before_they_are_saved() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/courses/\(room.courseID)"
            let fine = try await api.call(
                .patch, path, as: room.teacher,
                json: [
                    "points": ["present": 3, "late": 2, "excused": 3, "absent": 0], "absenteeThreshold": 75,
                ])
            #expect(fine.status == .ok, "\(fine.text)")
            #expect(fine.int("course.points.late") == 2)
            #expect(fine.int("course.absenteeThreshold") == 75)
            let student = try await api.call(.get, path, as: room.student)
            #expect(student.value("course.points") == nil, "the record settings are the teacher's")
            try await api.expectRefused(
                .patch, path, as: room.teacher, json: ["points": ["present": 1, "late": 2, "excused": 0, "absent": 0]],
                status: .badRequest, code: "invalid_points")
            try await api.expectRefused(
                .patch, path, as: room.teacher, json: ["points": ["present": 2, "late": 1]], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .patch, path, as: room.teacher, json: ["absenteeThreshold": 101], status: .badRequest,
                code: "invalid_absentee_threshold")
            try await api.expectRefused(
                .patch, path, as: room.teacher, json: ["markAbsentOnClose": "yes"], status: .badRequest,
                code: "wrong_type")
            try await api.expectRefused(
                .patch, path, as: room.student, json: ["absenteeThreshold": 10], status: .forbidden, code: "forbidden")
        }
    }

    @Test func a_student_sees_percentage_counts_and_grade_and_only_their_own() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let week1 = try await api.pastSession(room, title: "Week 1")
            let week2 = try await api.pastSession(room, title: "Week 2")
            let week3 = try await api.pastSession(room, title: "Week 3")
            try await api.mark(room, session: week1, student: room.student.id, "present")
            try await api.mark(room, session: week2, student: room.student.id, "late")
            _ = week3  // closed without a record: absent
            let path = "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance"
            let reply = try await api.call(.get, path, as: room.student)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.int("summary.sessions") == 3, "the open session does not count yet")
            #expect(reply.int("summary.present") == 1)
            #expect(reply.int("summary.late") == 1)
            #expect(reply.int("summary.absent") == 1)
            #expect((reply.value("summary.percentage") as? Double).map { abs($0 - 200.0 / 3) < 0.01 } == true)
            #expect(reply.value("summary.grade") as? Double == 50)  // (2 + 1 + 0) of 6
            #expect(reply.list("sessions").count == 4)
            let open = try #require(reply.list("sessions").first { $0["sessionId"] as? Int == Int(room.sessionID) })
            #expect(open["status"] == nil, "the open session: not yet")

            let classmate = try await api.register("Cleo Classmate")
            let joinCode = try #require(
                try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher).string(
                    "course.joinCode"))
            _ = try await api.call(.post, "/api/v1/courses/join", as: classmate, json: ["code": joinCode])
            try await api.expectRefused(.get, path, as: classmate, status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/students/999999/attendance", as: room.teacher,
                status: .notFound, code: "student_not_found")
            #expect(try await api.call(.get, path, as: room.teacher).status == .ok)

            let absentees = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/absentees", as: room.teacher)
            #expect(absentees.value("threshold") as? Double == 80)
            #expect(
                absentees.list("students").compactMap { ($0["student"] as? [String: Any])?["name"] as? String }
                    == ["Cass Checkin"], "Cleo joined after the closed sessions: she is not absent from them")
            let lenient = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/absentees?below=50", as: room.teacher)
            #expect(lenient.list("students").isEmpty, "66.7% is not below 50%")
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/absentees?below=much", as: room.teacher, status: .badRequest,
                code: "invalid_threshold")
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/absentees", as: room.student, status: .forbidden,
                code: "forbidden")
        }
    }

    @Test func the_course_report_reads_back_to_what_the_database_holds() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let joinCode = try #require(
                try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher).string(
                    "course.joinCode"))
            let grace = try await api.register("Hopper, Grace", email: "grace@school.test")
            let tricky = try await api.register("=cmd|' /C calc'!A0", email: "tricky@school.test")
            for student in [grace, tricky] {
                _ = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": joinCode])
            }
            let week1 = try await api.pastSession(room, title: "Week 1, \"intro\"")
            try await api.mark(room, session: week1, student: grace.id, "present")
            try await api.mark(room, session: week1, student: tricky.id, "excused")
            try await api.mark(room, session: room.sessionID, student: tricky.id, "late")

            let rows = try await api.csv("/api/v1/courses/\(room.courseID)/report.csv", as: room.teacher)
            let header = try #require(rows.first)
            #expect(header.prefix(3) == ["Name", "Email", "Student number"])
            #expect(
                header.suffix(10) == [
                    "Present", "Late", "Excused", "Absent", "Attendance %", "Grade %", "Quiz points", "Quiz out of",
                    "Quiz %", "Course grade %",
                ])
            #expect(header.count == 3 + 2 + 10, "one column per session that has opened")
            #expect(header[4].hasPrefix("Week 1, \"intro\" ("), "sessions oldest first")
            #expect(rows.count == 4)

            // Each cell against the database: a stored status, or absent where a closed session has none.
            let sessions: [(id: Int64, closed: Bool)] = [(room.sessionID, false), (week1, true)]
            var stored: [Int64: [Int64: (String, String)]] = [:]
            for session in sessions { stored[session.id] = try await api.attendanceRows(session: session.id) }
            let ids = [room.student.email: room.student.id, grace.email: grace.id, tricky.email: tricky.id]
            for row in rows.dropFirst() {
                let id = try #require(ids[row[1]])
                for (column, session) in sessions.enumerated() {
                    let expected = stored[session.id]?[id]?.0 ?? (session.closed ? "absent" : "")
                    #expect(row[3 + column] == expected, "\(row)")
                }
            }
            let graceRow = try #require(rows.first { $0[1] == grace.email })
            #expect(graceRow[0] == "Hopper, Grace")
            #expect(Array(graceRow.suffix(10)) == ["1", "0", "0", "0", "100.0", "100.0", "0", "0", "", "100.0"])
            let cassRow = try #require(rows.first { $0[1] == room.student.email })
            #expect(Array(cassRow.suffix(10)) == ["0", "0", "0", "1", "0.0", "0.0", "0", "0", "", "0.0"])
            let trickyRow = try #require(rows.first { $0[1] == tricky.email })
            #expect(trickyRow[0] == "'=cmd|' /C calc'!A0", "a formula is written as text")
            #expect(Array(trickyRow.suffix(10)) == ["0", "1", "1", "0", "100.0", "50.0", "0", "0", "", "50.0"])

            let session = try await api.csv("/api/v1/sessions/\(week1)/report.csv", as: room.teacher)
            // The zone is named in the header; the source in words, its code in a column of its own.
            let zone = try #require(
                try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher).string("course.timeZone")
            )
            #expect(
                session.first == [
                    "Name", "Email", "Student number", "Status", "Recorded at (\(zone))", "Source", "Source code",
                    "Reason",
                ])
            #expect(
                Set(session.dropFirst().map { [$0[1], $0[3], $0[5], $0[6]] }) == [
                    [room.student.email, "absent", "", ""], [grace.email, "present", "Marked by hand", "manual"],
                    [tricky.email, "excused", "Marked by hand", "manual"],
                ])

            // The file keeps the course's accents in its name, with a plain one for older browsers; the reason a
            // student was told is in the session's file.
            _ = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["name": "Géologie 210"])
            _ = try await api.mark(room, session: week1, student: grace.id, "excused", reason: "Field trip, Ørsted")
            let report = try await api.call(.get, "/api/v1/sessions/\(week1)/report.csv", as: room.teacher)
            #expect(
                report.headers[.contentDisposition]
                    == "attachment; filename=\"geologie-210-week-1-intro-attendance.csv\"; filename*=UTF-8''g%C3%A9ologie-210-week-1-intro-attendance.csv"
            )
            let withReason = try await api.csv("/api/v1/sessions/\(week1)/report.csv", as: room.teacher)
            #expect(withReason.first { $0[1] == grace.email }?.last == "Field trip, Ørsted")
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/report.csv", as: room.student, status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .get, "/api/v1/sessions/\(week1)/report.csv", as: tricky, status: .forbidden, code: "forbidden")
        }
    }

    @Test func a_roster_import_enrols_students_and_invites_the_rest_who_join_once_confirmed() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let known = try await api.register("Kim Known", studentNumber: "K-1")
            let csv = """
                Name,Email,Student number
                Kim Known,kim.known@school.test,K-1
                Cass Checkin,CASS.CHECKIN@school.test,
                "Newman, Nia",nia@school.test,N-7

                """
            let path = "/api/v1/courses/\(room.courseID)/roster-import"
            let reply = try await api.call(
                .post, path, as: room.teacher, raw: Array(csv.utf8), contentType: "text/csv")
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.int("enrolled") == 1)
            #expect(reply.int("alreadyEnrolled") == 1)
            #expect(reply.list("invited").map { $0["email"] as? String } == ["nia@school.test"])
            let roster = try await api.call(.get, "/api/v1/courses/\(room.courseID)/students", as: room.teacher)
            #expect(
                Set(roster.list("students").compactMap { $0["id"] as? Int }) == [
                    Int(room.student.id), Int(known.id),
                ])
            let invitation = try #require(try await api.outbox().first { $0.recipient == "nia@school.test" })
            #expect(invitation.body.contains("/register?email=nia%40school.test"))
            // The subject is Rollcall's own words; the teacher's course name is in the body only.
            #expect(
                !invitation.subject.contains("Biology") && invitation.body.contains("Biology"), "\(invitation.subject)")

            let again = try await api.call(
                .post, path, as: room.teacher, raw: Array(csv.utf8), contentType: "text/csv")
            #expect(again.int("alreadyEnrolled") == 2, "importing the same file twice changes nothing more")
            // Invited already: not mailed again, and the answer says so.
            #expect(again.int("alreadyInvited") == 1 && again.list("invited").isEmpty, "\(again.text)")
            #expect(try await api.outbox().filter { $0.recipient == "nia@school.test" }.count == 1)

            let nia = try await api.register("Nia Newman", email: "nia@school.test")
            let pending = try await api.call(.get, "/api/v1/courses/\(room.courseID)/invitations", as: room.teacher)
            #expect(pending.list("invitations").count == 1, "an unconfirmed address does not take the place")
            let mail = try #require(
                try await api.outbox().first { $0.recipient == "nia@school.test" && $0.body.contains("token=") })
            let token = try #require(mail.body.firstMatch(of: /token=([\w-]+)/)?.1)
            _ = try await api.call(.post, "/api/v1/auth/verify-email", json: ["token": String(token)])
            let joined = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: nia)
            #expect(joined.status == .ok, "confirming the address joins the invited course: \(joined.text)")
            let me = try await api.call(.get, "/api/v1/me", as: nia)
            #expect(me.string("user.studentNumber") == "N-7", "the roster's number is kept: \(me.text)")
            let none = try await api.call(.get, "/api/v1/courses/\(room.courseID)/invitations", as: room.teacher)
            #expect(none.list("invitations").isEmpty)
        }
    }

    @Test func a_bad_roster_file_imports_nothing_and_names_every_bad_row() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/courses/\(room.courseID)/roster-import"
            _ = try await api.register("Tom Taken", studentNumber: "T-1")
            _ = try await api.register("Tina Teacher", role: "teacher", email: "tina@school.test")
            let csv = """
                name,email,student number
                Good Row,good@school.test,
                ,blank@school.test,
                Tina,tina@school.test,
                Thief,thief@school.test,T-1
                Good Row Again,GOOD@school.test,
                """
            let before = try await api.snapshot()
            let reply = try await api.call(
                .post, path, as: room.teacher, raw: Array(csv.utf8), contentType: "text/csv")
            #expect(reply.status == .unprocessableContent, "\(reply.text)")
            #expect(reply.errorCode == "invalid_rows")
            #expect(reply.errorMessage?.contains("Nothing was imported") == true)
            // Every problem at once, in line order: the file's own, and its rows that clash with accounts.
            let rows = reply.list("error.rows")
            #expect(rows.map { $0["line"] as? Int } == [3, 4, 5, 6])
            #expect(
                rows.map { $0["code"] as? String } == [
                    "invalid_name", "not_a_student", "student_number_taken", "duplicate_email",
                ])
            #expect(try await api.snapshot() == before)

            // Rows that clash with accounts, in a file with nothing else wrong.
            let clashing = "Tina,tina@school.test,\nThief,thief@school.test,T-1\nFine,fine@school.test,\n"
            let clash = try await api.call(
                .post, path, as: room.teacher, raw: Array(clashing.utf8), contentType: "text/csv")
            #expect(clash.status == .unprocessableContent)
            #expect(
                clash.list("error.rows").map { $0["code"] as? String } == ["not_a_student", "student_number_taken"])
            #expect(clash.list("error.rows").map { $0["line"] as? Int } == [1, 2])
            // The rows say what to mend, not whose accounts they clash with or what those accounts are.
            let messages = clash.list("error.rows").compactMap { $0["message"] as? String }.joined(separator: " ")
            #expect(!messages.contains("teacher") && !messages.contains("@school.test)"), "\(messages)")
            #expect(try await api.snapshot() == before, "not even the fine row was imported")

            try await api.expectRefused(
                .post, path, as: room.teacher, raw: [0x4E, 0x61, 0x81, 0x2C], contentType: "text/csv",
                status: .badRequest, code: "invalid_encoding")
            try await api.expectRefused(
                .post, path, as: room.teacher, raw: [0x4E, 0x00, 0x61, 0x2C], contentType: "text/csv",
                status: .badRequest, code: "invalid_encoding")
            try await api.expectRefused(
                .post, path, as: room.teacher, raw: Array("a,b\n\"open,never closed\n".utf8), contentType: "text/csv",
                status: .badRequest, code: "invalid_csv")
            try await api.expectRefused(
                .post, path, as: room.teacher, raw: [], contentType: "text/csv", status: .unprocessableContent,
                code: "invalid_rows")
            try await api.expectRefused(
                .post, path, as: room.teacher, raw: Array(repeating: 0x41, count: RosterController.importLimit + 1),
                contentType: "text/csv", status: .contentTooLarge, code: "body_too_large")
            try await api.expectRefused(
                .post, path, as: room.student, raw: Array("A,a@school.test".utf8), contentType: "text/csv",
                status: .forbidden, code: "forbidden")
        }
    }
}

@Suite("Report times", .timeLimit(.minutes(5)))
struct ReportTimeTests {
    /// A session opened at 02:30 UTC and a check-in recorded at 07:05 UTC on 1 September 2026, in a course in `zone`:
    /// the CSVs read back in that zone, with its offset.
    func reports(
        in zone: String, _ check: @Sendable (_ course: [[String]], _ session: [[String]], _ shown: Reply) -> Void
    ) async throws {
        try await withServer { api in
            let teacher = try await api.register("Tess Teacher", role: "teacher")
            let created = try await api.call(
                .post, "/api/v1/courses", as: teacher, json: ["name": "Biology", "timeZone": zone])
            #expect(created.status == .created, "\(created.text)")
            let courseID = try #require(created.int("course.id"))
            let student = try await api.register("Cass Checkin")
            let joined = try await api.call(
                .post, "/api/v1/courses/join", as: student, json: ["code": created.string("course.joinCode") ?? ""])
            #expect(joined.status == .ok, "\(joined.text)")
            let session = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["title": "Lab"])
            let sessionID = try #require(session.int("session.id"))
            let marked = try await api.call(
                .put, "/api/v1/sessions/\(sessionID)/attendance/\(student.id)", as: teacher,
                json: ["status": "present"])
            #expect(marked.status == .ok, "\(marked.text)")
            let opened = try #require(Date(isoText: "2026-09-01T02:30:00Z")).timeIntervalSince1970
            let recorded = try #require(Date(isoText: "2026-09-01T07:05:00Z")).timeIntervalSince1970
            try await api.execute("UPDATE sessions SET opened_at = \(opened) WHERE id = \(sessionID)")
            try await api.execute("UPDATE attendance SET recorded_at = \(recorded) WHERE session_id = \(sessionID)")
            check(
                try await api.csv("/api/v1/courses/\(courseID)/report.csv", as: teacher),
                try await api.csv("/api/v1/sessions/\(sessionID)/report.csv", as: teacher),
                try await api.call(.get, "/api/v1/courses/\(courseID)", as: teacher))
        }
    }

    // Local times a spreadsheet reads as times: no offset after them, the zone in the column's header.
    @Test func reports_show_berlin_time_and_name_the_zone_in_the_header() async throws {
        try await reports(in: "Europe/Berlin") { course, session, shown in
            #expect(shown.string("course.timeZone") == "Europe/Berlin", "\(shown.text)")
            #expect(session.first?[4] == "Recorded at (Europe/Berlin)", "\(session)")
            #expect(session.dropFirst().map { $0[4] } == ["2026-09-01 09:05:00"], "\(session)")
            #expect(course.first?[3] == "Lab (2026-09-01)", "\(course.first ?? [])")
        }
    }

    @Test func reports_show_new_york_time_and_name_the_zone_in_the_header() async throws {
        try await reports(in: "America/New_York") { course, session, shown in
            #expect(shown.string("course.timeZone") == "America/New_York", "\(shown.text)")
            #expect(session.first?[4] == "Recorded at (America/New_York)", "\(session)")
            #expect(session.dropFirst().map { $0[4] } == ["2026-09-01 03:05:00"], "\(session)")
            #expect(course.first?[3] == "Lab (2026-08-31)", "the local day, not UTC's: \(course.first ?? [])")
        }
    }

    @Test func a_course_takes_the_servers_zone_and_changes_it_by_patch() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let course = try await api.call(.get, "/api/v1/courses/\(courseID)", as: teacher)
            #expect(course.string("course.timeZone") == TimeZone.current.identifier, "\(course.text)")
            let patched = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "Asia/Kolkata"])
            #expect(patched.string("course.timeZone") == "Asia/Kolkata", "\(patched.text)")
            let page = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(page.text.contains(#"<option value="Asia/Kolkata" selected>"#), "the settings form shows it")
        }
    }

    @Test func an_unknown_time_zone_is_refused_and_nothing_is_stored() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            for zone in ["Mars/Olympus", "europe/berlin", "GMT+2", "", " Europe/Berlin", "EST"] {
                try await api.expectRefused(
                    .post, "/api/v1/courses", as: teacher, json: ["name": "Physics", "timeZone": zone],
                    status: .badRequest, code: "invalid_time_zone")
                try await api.expectRefused(
                    .patch, "/api/v1/courses/\(courseID)", as: teacher,
                    json: ["name": "Renamed", "timeZone": zone], status: .badRequest, code: "invalid_time_zone")
            }
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": 2],
                status: .badRequest, code: "wrong_type")
        }
    }
}

@Suite("Records, live", .timeLimit(.minutes(1)))
struct RecordsLiveTests {
    @Test func a_change_by_hand_and_the_absences_of_a_close_reach_the_teachers_live_view() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let other = try await room.enrol(api, "Ola Other")
            _ = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["markAbsentOnClose": true])
            try await api.watch(room.sessionID, as: room.teacher) { view in
                _ = try await view.next("snapshot")
                try await api.mark(room, session: room.sessionID, student: room.student.id, "excused", reason: "Ill")
                let changed = try await view.next("event")
                #expect(changed.string("kind") == "status_changed")
                #expect(changed.int("data.studentId") == room.student.id)
                #expect(changed.string("data.status") == "excused")
                #expect(changed.value("data.previous") == nil)
                #expect(changed.string("data.reason") == "Ill")
                #expect(changed.int("data.changedBy") == room.teacher.id)
                #expect(try await view.next("counts").int("counts.excused") == 1)

                // Repeating the status writes nothing, so the next event is the close's.
                try await api.mark(room, session: room.sessionID, student: room.student.id, "excused")
                _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
                let absent = try await view.next("event")
                #expect(absent.string("kind") == "status_changed")
                #expect(absent.int("data.studentId") == other.id)
                #expect(absent.string("data.status") == "absent")
                #expect(absent.string("data.reason") == "Not checked in when the session closed.")
                #expect(try await view.next("event").string("kind") == "session_closed")
            }
            let kinds = try await api.events(sessionID: room.sessionID).map(\.kind.rawValue)
            #expect(kinds == ["session_opened", "status_changed", "status_changed", "session_closed"])
        }
    }
}
