import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer

extension API {
    /// A health officer: an account the admin granted the role to, through the API.
    func healthOfficer(_ name: String = "Hana Health", admin: Account) async throws -> Account {
        let officer = try await register(name, role: "teacher")
        let granted = try await call(.post, "/api/v1/admin/users/\(officer.id)/health-officer", as: admin)
        #expect(granted.status == .ok, "\(granted.text)")
        #expect(granted.value("user.healthOfficer") as? Bool == true)
        return officer
    }

    /// Puts a session at a known moment: opened `opened` ago, ended `minutes` later, in `room`.
    func place(session: Int64, openedAt: Date, minutes: Double, room: String?) async throws {
        let settings = room.map { #", "room": "\#($0)""# } ?? ""
        let end = openedAt.addingTimeInterval(minutes * 60).timeIntervalSince1970
        try await execute(
            """
            UPDATE sessions SET opened_at = \(openedAt.timeIntervalSince1970), closed_at = \(end), closes_at = \(end),
              settings = '{"mode":"qr","period":5,"grace":1,"openMinutes":60,"allowTyping":false,"allowedNetworks":[]\(settings)}'
            WHERE id = \(session)
            """)
    }

    /// Records a student in a session as a check-in at a known moment (`minutes` after `openedAt`), or by hand.
    func record(
        session: Int64, student: Int64, status: String = "present", source: String = "qr", at moment: Date
    ) async throws {
        try await execute(
            """
            INSERT INTO attendance (session_id, student_id, status, recorded_at, source)
            VALUES (\(session), \(student), '\(status)', \(moment.timeIntervalSince1970), '\(source)')
            """)
    }
}

/// Exposure reports through the API: who shared a room with a person, audited, with every refusal leaving nothing.
@Suite("Exposure reports", .timeLimit(.minutes(5)))
struct ExposureReportTests {
    /// Pat's three sessions with known overlaps, one Pat missed, and one before the window.
    struct Scenario {
        var officer: Account
        var admin: Account
        var teacher: Account
        var pat: Account
        var names: [String: Int64]
        var sessions: [Int64]
    }

    static func scenario(_ api: API) async throws -> Scenario {
        let admin = try await api.admin()
        let officer = try await api.healthOfficer(admin: admin)
        let room = try await Classroom.open(api, student: "Pat Person")
        var names: [String: Int64] = ["Pat Person": room.student.id]
        for name in ["Ann Able", "Ben Baker", "Cy Cole", "Dee Dunn", "Eve Earl", "Fay Ford"] {
            names[name] = try await room.enrol(api, name).id
        }
        var sessions: [Int64] = []
        for title in ["Cells", "Genes", "Lab", "Missed", "Long ago"] {
            sessions.append(try await api.pastSession(room, title: title))
        }
        let day = 86_400.0
        let now = Date()
        let t1 = now.addingTimeInterval(-10 * day)
        let t2 = now.addingTimeInterval(-6 * day)
        let t3 = now.addingTimeInterval(-2 * day)
        let t4 = now.addingTimeInterval(-1 * day)
        let t5 = now.addingTimeInterval(-20 * day)
        func minutes(_ t: Date, _ m: Double) -> Date { t.addingTimeInterval(m * 60) }
        let (pat, ann, ben, cy, dee, eve, fay) = (
            names["Pat Person"]!, names["Ann Able"]!, names["Ben Baker"]!, names["Cy Cole"]!, names["Dee Dunn"]!,
            names["Eve Earl"]!, names["Fay Ford"]!
        )
        // Cells, room B204, 60 minutes: Pat at 5, Ann at 0 (55 shared), Ben at 20 (40).
        try await api.place(session: sessions[0], openedAt: t1, minutes: 60, room: "B204")
        try await api.record(session: sessions[0], student: pat, at: minutes(t1, 5))
        try await api.record(session: sessions[0], student: ann, at: minutes(t1, 0))
        try await api.record(session: sessions[0], student: ben, source: "typed", at: minutes(t1, 20))
        // Genes, no room, 50 minutes: Pat marked by hand (from the opening), Ann at 10 (40), Cy late at 30 (20);
        // Dee absent and Eve excused are not contacts.
        try await api.place(session: sessions[1], openedAt: t2, minutes: 50, room: nil)
        try await api.record(session: sessions[1], student: pat, source: "manual", at: minutes(t2, 49))
        try await api.record(session: sessions[1], student: ann, source: "spot", at: minutes(t2, 10))
        try await api.record(session: sessions[1], student: cy, status: "late", at: minutes(t2, 30))
        try await api.record(session: sessions[1], student: dee, status: "absent", source: "manual", at: t2)
        try await api.record(session: sessions[1], student: eve, status: "excused", source: "manual", at: t2)
        // Lab, room "Lab 3", 90 minutes: Pat at 0, Ben late at 45 (45).
        try await api.place(session: sessions[2], openedAt: t3, minutes: 90, room: "Lab 3")
        try await api.record(session: sessions[2], student: pat, at: t3)
        try await api.record(session: sessions[2], student: ben, status: "late", source: "api", at: minutes(t3, 45))
        // Missed: Pat absent, so Ann and Ben here are not Pat's contacts.
        try await api.place(session: sessions[3], openedAt: t4, minutes: 60, room: nil)
        try await api.record(session: sessions[3], student: ann, at: t4)
        try await api.record(session: sessions[3], student: ben, at: t4)
        // Long ago: before a 14-day window.
        try await api.place(session: sessions[4], openedAt: t5, minutes: 60, room: nil)
        try await api.record(session: sessions[4], student: pat, at: t5)
        try await api.record(session: sessions[4], student: fay, at: t5)
        return Scenario(
            officer: officer, admin: admin, teacher: room.teacher, pat: room.student, names: names, sessions: sessions)
    }

    @Test func a_report_lists_each_session_attended_with_every_contact_and_the_minutes_shared() async throws {
        try await withServer { api in
            let s = try await Self.scenario(api)
            let reply = try await api.call(
                .post, "/api/v1/exposure-reports", as: s.officer,
                json: ["email": s.pat.email, "reason": "Positive test reported on Monday"])
            #expect(reply.status == .created, "\(reply.text)")
            let sessions = reply.list("report.sessions")
            #expect(sessions.map { $0["title"] as? String } == ["Cells", "Genes", "Lab"])
            #expect(sessions.map { $0["room"] as? String } == ["B204", nil, "Lab 3"])
            #expect(sessions[1]["checkedInAt"] == nil, "a mark by hand has no check-in time")
            func contacts(_ session: [String: Any]) -> [String: Int] {
                Dictionary(
                    uniqueKeysWithValues: (session["contacts"] as? [[String: Any]] ?? []).map {
                        ($0["name"] as! String, $0["minutes"] as! Int)
                    })
            }
            #expect(contacts(sessions[0]) == ["Ann Able": 55, "Ben Baker": 40])
            #expect(contacts(sessions[1]) == ["Ann Able": 40, "Cy Cole": 20])
            #expect(contacts(sessions[2]) == ["Ben Baker": 45])
            let ranked = reply.list("report.contacts").map {
                "\($0["name"]!) \($0["totalMinutes"]!) \($0["sessions"]!)"
            }
            #expect(ranked == ["Ann Able 95 2", "Ben Baker 85 2", "Cy Cole 20 1"])
            #expect(reply.string("report.method")?.contains("did not check in") == true)
            // The rooms lie at 52.0001, 4.0: neither that nor the word appears (a moment's "…:52.123Z" may).
            #expect(!reply.text.contains("latitude") && !reply.text.contains("52.0001"), "never coordinates")

            // Audited: who, about whom, why, when; the person sees only that it was made.
            let audit = try await api.call(.get, "/api/v1/admin/exposure-reports", as: s.admin)
            #expect(audit.list("reports").count == 1)
            #expect(audit.list("reports").first?["reason"] as? String == "Positive test reported on Monday")
            #expect(audit.list("reports").first?["requestedByName"] as? String == "Hana Health")
            #expect(audit.list("reports").first?["personName"] as? String == "Pat Person")
            let notice = try await api.call(.get, "/api/v1/me/exposure-reports", as: s.pat)
            #expect(notice.list("reports").count == 1)
            #expect(notice.list("reports").first.map { Set($0.keys) } == ["createdAt"])
            let other = try await api.call(.get, "/api/v1/me/exposure-reports", as: s.teacher)
            #expect(other.list("reports").isEmpty)

            // Again, as CSV, for the officer who ran it only.
            let id = try #require(reply.int("report.id"))
            let again = try await api.call(.get, "/api/v1/exposure-reports/\(id)", as: s.officer)
            #expect(again.list("report.contacts").count == 3)
            let csv = try await api.csv("/api/v1/exposure-reports/\(id)/report.csv", as: s.officer)
            #expect(csv[0] == ["Contact", "Total shared minutes", "Sessions", "Minutes near by phone", "Evidence"])
            #expect(csv[1] == ["Ann Able", "95", "2", "0", "attendance"])
            #expect(
                csv.contains {
                    $0.first == "Biology 101" && $0[1] == "Cells" && $0[2] == "B204" && $0[5] == "Ann Able"
                        && $0[6] == "55"
                })
            #expect(csv.contains { $0[1] == "Genes" && $0[2] == "—" })
            let colleague = try await api.healthOfficer("Hal Other", admin: s.admin)
            #expect(try await api.call(.get, "/api/v1/exposure-reports/\(id)", as: colleague).status == .notFound)

            // A wider window reaches the old session; nobody from it before.
            let wide = try await api.call(
                .post, "/api/v1/exposure-reports", as: s.officer,
                json: ["personId": s.pat.id, "reason": "Wider window", "days": 30])
            #expect(wide.list("report.sessions").count == 4, "\(wide.text.prefix(300))")
            #expect(wide.list("report.contacts").contains { $0["name"] as? String == "Fay Ford" })
        }
    }

    @Test func the_csv_writes_local_times_in_the_officers_zone_and_names_it_in_the_header() async throws {
        try await withServer { api in
            let s = try await Self.scenario(api)
            let zone = "America/Mexico_City"
            let set = try await api.call(.patch, "/api/v1/me", as: s.officer, json: ["timeZone": zone])
            #expect(set.status == .ok, "\(set.text)")
            let reply = try await api.call(
                .post, "/api/v1/exposure-reports", as: s.officer,
                json: ["email": s.pat.email, "reason": "Positive test reported on Monday"])
            let id = try #require(reply.int("report.id"), "\(reply.text)")
            let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            let opened = try reply.list("report.sessions").map { try iso.parse($0["openedAt"] as? String ?? "") }
            let ended = try reply.list("report.sessions").map { try iso.parse($0["endedAt"] as? String ?? "") }
            let csv = try await api.csv("/api/v1/exposure-reports/\(id)/report.csv", as: s.officer)
            let header = try #require(csv.firstIndex { $0.first == "Course" })
            #expect(csv[header][3] == "Opened at (\(zone))" && csv[header][4] == "Ended at (\(zone))", "\(csv[header])")
            let mexico = TimeZone(identifier: zone)!
            let lines = csv[(header + 1)...].filter { $0.count > 4 }
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(!line[3].contains("T") && !line[3].contains("Z") && !line[3].contains("+"), "\(line)")
                #expect(
                    opened.map { CourseTimeZone.timestamp($0, in: mexico) }.contains(line[3]), "local, \(line[3])")
                #expect(ended.map { CourseTimeZone.timestamp($0, in: mexico) }.contains(line[4]), "local, \(line[4])")
            }
        }
    }

    @Test func every_bad_input_is_refused_with_its_code_and_nothing_stored_changes() async throws {
        try await withServer { api in
            let s = try await Self.scenario(api)
            let path = "/api/v1/exposure-reports"
            let pat = s.pat.id
            let reason = "Positive test"
            let day: TimeInterval = 86_400
            let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let longAgo = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-20 * day))
            let tomorrow = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(36 * 3600)).prefix(10))
            try await api.expectRefused(
                .post, path, json: ["personId": pat, "reason": reason], status: .unauthorized, code: "not_signed_in")
            for asker in [s.teacher, s.pat, s.admin] {
                try await api.expectRefused(
                    .post, path, as: asker, json: ["personId": pat, "reason": reason], status: .forbidden,
                    code: "forbidden")
            }
            let cases: [([String: Any], HTTPResponse.Status, String)] = [
                (["personId": pat], .badRequest, "invalid_reason"),
                (["personId": pat, "reason": "  "], .badRequest, "invalid_reason"),
                (["personId": pat, "reason": String(repeating: "x", count: 501)], .badRequest, "invalid_reason"),
                (["reason": reason], .badRequest, "invalid_person"),
                (["personId": pat, "email": s.pat.email, "reason": reason], .badRequest, "invalid_person"),
                (["personId": 999_999, "reason": reason], .notFound, "person_not_found"),
                (["email": "nobody@school.test", "reason": reason], .notFound, "person_not_found"),
                (["studentNumber": "NOPE-1", "reason": reason], .notFound, "person_not_found"),
                (["personId": "seven", "reason": reason], .badRequest, "wrong_type"),
                (["personId": pat, "reason": reason, "days": 0], .badRequest, "invalid_days"),
                (["personId": pat, "reason": reason, "days": 31], .badRequest, "invalid_days"),
                (["personId": pat, "reason": reason, "days": "many"], .badRequest, "wrong_type"),
                (["personId": pat, "reason": reason, "until": future], .badRequest, "invalid_until"),
                (["personId": pat, "reason": reason, "until": "next tuesday"], .badRequest, "invalid_until"),
                (["personId": pat, "reason": reason, "until": tomorrow], .badRequest, "invalid_until"),
                (["personId": pat, "reason": reason, "days": 2.5], .badRequest, "invalid_days"),
                (
                    ["personId": pat, "reason": reason, "until": longAgo], .unprocessableContent,
                    "window_beyond_retention"
                ),
                (
                    ["personId": pat, "reason": reason, "days": 30, "until": longAgo], .unprocessableContent,
                    "window_beyond_retention"
                ),
            ]
            // Moments and days that Foundation's readers would roll over, shift or cut short.
            let malformed = [
                "2026-11-31", "2026-11-23T25:61:00Z", "2026-11-23xyz", "2026-11-23T12:00:00+25:00",
                "2026-11-23T12:00:00",
            ]
            let refusals =
                cases
                + malformed.map { (["personId": pat, "reason": reason, "until": $0], .badRequest, "invalid_until") }
            for (body, status, code) in refusals {
                try await api.expectRefused(.post, path, as: s.officer, json: body, status: status, code: code)
            }
            try await api.expectRefused(
                .post, path, as: s.officer, raw: Array("personId=1".utf8), contentType: "text/plain",
                status: .unsupportedMediaType, code: "unsupported_media_type")
            try await api.expectRefused(
                .post, path, as: s.officer, raw: Array("{".utf8), contentType: "application/json", status: .badRequest,
                code: "invalid_json")
            try await api.expectRefused(
                .get, "/api/v1/exposure-reports/12345", as: s.officer, status: .notFound,
                code: "exposure_report_not_found")
            try await api.expectRefused(
                .post, "/api/v1/admin/users/999999/health-officer", as: s.admin, status: .notFound,
                code: "user_not_found")
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(pat)/health-officer", as: s.officer, status: .forbidden, code: "forbidden"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/1/sessions", as: s.teacher,
                json: ["settings": ["room": String(repeating: "R", count: 81)]], status: .badRequest,
                code: "invalid_room")
        }
    }

    @Test func a_report_refuses_a_window_beyond_what_is_still_kept() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let officer = try await api.healthOfficer(admin: admin)
            let pat = try await api.register("Pat Person")
            let day: TimeInterval = 86_400
            let edge = Date().addingTimeInterval(-16 * day + 60)
            let inside = try await api.call(
                .post, "/api/v1/exposure-reports", as: officer,
                json: ["personId": pat.id, "reason": "Edge", "until": ISO8601DateFormatter().string(from: edge)])
            #expect(inside.status == .created, "a window ending 16 days ago still starts inside 30: \(inside.text)")
            try await api.expectRefused(
                .post, "/api/v1/exposure-reports", as: officer,
                json: [
                    "personId": pat.id, "reason": "Edge",
                    "until": ISO8601DateFormatter().string(from: edge.addingTimeInterval(-120)),
                ],
                status: .unprocessableContent, code: "window_beyond_retention")
            // Revoked, the officer can run no more.
            #expect(
                try await api.call(.delete, "/api/v1/admin/users/\(officer.id)/health-officer", as: admin).status == .ok
            )
            try await api.expectRefused(
                .post, "/api/v1/exposure-reports", as: officer, json: ["personId": pat.id, "reason": "Again"],
                status: .forbidden, code: "forbidden")
        }
    }

    @Test func an_admin_is_made_a_health_officer_by_another_admin_where_there_is_one() async throws {
        try await withServer { api in
            // Setup: the only admin, who may grant themself the role (there is nobody else to ask).
            let first = try await api.admin()
            let alone = try await api.call(.post, "/api/v1/admin/users/\(first.id)/health-officer", as: first)
            #expect(alone.status == .ok && alone.value("user.healthOfficer") as? Bool == true, "\(alone.text)")

            // A second admin arrives.
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                _ = try await UserStore(database: database).create(
                    NewUser(
                        name: "Second Admin", email: "second.admin@school.test",
                        passwordHash: try await PasswordHasher(cost: 4).hash(API.password), role: .admin,
                        studentNumber: nil, approved: true, emailVerified: true))
            }
            let second = try await api.signIn("second.admin@school.test")

            // The calls under test: the second grants themself, then the first grants them.
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(second.id)/health-officer", as: second, status: .forbidden,
                code: "second_admin_required")
            let granted = try await api.call(.post, "/api/v1/admin/users/\(second.id)/health-officer", as: first)

            // Validation: a second person was involved; giving up one's own role needs nobody.
            #expect(granted.value("user.healthOfficer") as? Bool == true, "\(granted.text)")
            let revoked = try await api.call(.delete, "/api/v1/admin/users/\(second.id)/health-officer", as: second)
            #expect(revoked.value("user.healthOfficer") as? Bool == false, "\(revoked.text)")
        }
    }

    @Test func a_session_keeps_its_room_label() async throws {
        try await withServer { api in
            let (teacher, course, _) = try await api.teacherWithCourse()
            let created = try await api.call(
                .post, "/api/v1/courses/\(course)/sessions", as: teacher, json: ["settings": ["room": " B204 "]])
            #expect(created.string("session.settings.room") == "B204", "\(created.text)")
            let plain = try await api.call(.post, "/api/v1/courses/\(course)/sessions", as: teacher, json: [:])
            #expect(plain.value("session.settings.room") == nil)
        }
    }
}
