import Foundation
import HTTPTypes
import PasskeyTestSupport
import RollcallModel
import RollcallParts
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Where a race runs: one server on a SQLite file, or two server processes on one PostgreSQL.
enum RaceGround: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "two processes on PostgreSQL" }

    /// Runs `body` with the servers to send to (the one server twice on SQLite) and the database they share.
    func run(
        configure: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        _ body: @Sendable (_ servers: [API], _ database: Database) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            try await withServer(setup: .live, configure: configure) { api in
                try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                    try await body([api, api], database)
                }
            }
        case .postgres:
            let postgres = try PostgresServer.start()
            defer { postgres.stop() }
            try await withServer(databaseURL: postgres.url, setup: .live, configure: configure) { first in
                try await withServer(databaseURL: postgres.url, setup: .live, configure: configure) { second in
                    try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing { database in
                        try await body([first, second], database)
                    }
                }
            }
        }
    }
}

/// The same request many times at once, spread over every process, has one winner, and what is stored agrees with
/// what each request was told. Each race runs on SQLite and on two processes sharing PostgreSQL, where a decision
/// read in one statement and written in another would let several win.
@Suite("Races", .timeLimit(.minutes(4)))
struct RacesTests {
    /// Sends `count` requests released together, alternating between the servers; answers the replies in the
    /// order of `send`'s index.
    static func atOnce(
        _ count: Int, over servers: [API], _ send: @escaping @Sendable (API, Int) async throws -> Reply
    ) async throws -> [Reply] {
        let gate = Gate()
        let replies = try await withThrowingTaskGroup(of: (Int, Reply).self) { group in
            for index in 0..<count {
                let api = servers[index % servers.count]
                group.addTask {
                    await gate.wait()
                    return (index, try await send(api, index))
                }
            }
            await gate.open(after: count)
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        return (0..<count).map { replies[$0]! }
    }

    /// A request body as bytes, which (unlike a dictionary) every task may share.
    static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test(arguments: RaceGround.allCases)
    func one_reset_link_used_twenty_times_at_once_sets_one_password(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let ada = try await servers[0].register("Ada Racer")
            let token = try await PasswordResets(database: database).issue(userID: ada.id, requestedBy: nil)

            let replies = try await Self.atOnce(20, over: servers) { api, index in
                try await api.call(
                    .post, "/api/v1/auth/password-reset/complete",
                    json: ["token": token, "newPassword": "password number \(index)"])
            }

            // One was told its password is set, and that password is the one that works.
            let winners = replies.indices.filter { replies[$0].status == .noContent }
            #expect(winners.count == 1, "\(replies.map(\.status.code))")
            #expect(replies.allSatisfy { $0.status == .noContent || $0.errorCode == "invalid_reset_token" })
            let signIn = try await servers[1].call(
                .post, "/api/v1/auth/tokens", json: ["email": ada.email, "password": "password number \(winners[0])"])
            #expect(signIn.status == .created, "\(signIn.text)")
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_texted_code_used_ten_times_at_once_signs_in_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let pia = try await servers[0].register("Pia Racer")
            try await UserStore(database: database).confirmPhone(id: pia.id, phone: "+447700900150")
            let codes = PhoneCodes(database: database, keys: ServerKeys(database: database))
            let code = try await codes.issue(.signIn, phone: "+447700900150", userID: pia.id)

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(.post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900150", "code": code])
            }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.status.code))")
            #expect(replies.allSatisfy { $0.status == .created || $0.errorCode == "invalid_code" })
        }
    }

    @Test(arguments: RaceGround.allCases)
    func senders_in_every_process_at_once_spend_a_teachers_daily_allowance_of_invitations_once(_ ground: RaceGround)
        async throws
    {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            let now = Date()
            try await database.write { sql in
                for number in 1...10 {
                    try await sql.insert(into: "course_invitations")
                        .columns("course_id", "email", "name", "invited_by", "invited_at")
                        .values(
                            SQLBind(room.courseID), SQLBind("waiting\(number)@school.test"),
                            SQLBind("Waiting \(number)"),
                            SQLBind(room.teacher.id), SQLBind(now)
                        ).run()
                }
            }
            // A second pool on the same database, as another process has.
            try await servers[1].database().closing { other async throws in
                let senders = [database, other].map { database in
                    InvitationMail(
                        database: database, outbox: Outbox(database: database, logger: .init(label: "test")),
                        perDay: 3, school: "Rollcall", publicURL: "http://localhost:8080")
                }
                let gate = Gate()
                let sent = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            await gate.wait()
                            return try await senders[index % 2].sendWaiting(from: room.teacher.id)
                        }
                    }
                    await gate.open(after: 8)
                    return try await group.reduce(0, +)
                }
                #expect(sent == 3)
            }
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM course_invitations WHERE mailed_at IS NOT NULL")
                    == 3)
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM outbox WHERE body LIKE '%/register?email=waiting%'")
                    == 3)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func ten_check_ins_refused_for_distance_at_once_tell_the_teacher_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(
                servers[0], settings: ["latitude": 52.0, "longitude": 4.0, "radius": 30])
            let far = try Self.json([
                "ticket": try await room.scan(servers[0]),
                "location": ["latitude": 52.01, "longitude": 4.0, "accuracy": 5],
            ])
            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(
                    .post, "/api/v1/check-ins", as: room.student, raw: far, contentType: "application/json")
            }

            #expect(replies.allSatisfy { $0.errorCode == "out_of_range" }, "\(replies.map(\.text))")
            #expect(try await database.count("SELECT COUNT(*) AS n FROM flags") == 1)
            #expect(try await database.count("SELECT COUNT(*) AS n FROM session_events WHERE kind = 'flagged'") == 1)
            #expect(try await database.count("SELECT COUNT(*) AS n FROM attendance") == 0)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_confirmation_link_used_ten_times_at_once_confirms_once_and_takes_the_invited_place_once(
        _ ground: RaceGround
    ) async throws {
        try await ground.run { servers, database in
            // An address a roster import invited, registered since and not confirmed.
            let room = try await Classroom.open(servers[0])
            let csv = "name,email\nIvy Invited,ivy.invited@school.test\n"
            let imported = try await servers[0].call(
                .post, "/api/v1/courses/\(room.courseID)/roster-import", as: room.teacher, raw: Array(csv.utf8),
                contentType: "text/csv")
            #expect(imported.list("invited").count == 1, "\(imported.text)")
            let ivy = try await servers[0].register("Ivy Invited")
            let token = try await AccessTokenStore(database: database).issueVerification(userID: ivy.id)

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(.post, "/api/v1/auth/verify-email", json: ["token": token])
            }

            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.text))")
            #expect(replies.allSatisfy { $0.status == .ok || $0.errorCode == "invalid_verification_token" })
            let enrolled = try await database.count(
                "SELECT COUNT(*) AS n FROM enrollments WHERE course_id = \(room.courseID) AND student_id = \(ivy.id)")
            #expect(enrolled == 1)
            #expect(try await database.count("SELECT COUNT(*) AS n FROM course_invitations") == 0)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_passkey_answer_sent_ten_times_at_once_signs_in_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, _ in
            let student = try await servers[0].register("Kit Keyholder")
            var phone = SoftwareAuthenticator.of(student)
            try await servers[0].addPasskey(student, phone)
            let answer = try Self.json([
                "credential": phone.assertionJSON(challenge: try await servers[1].signInChallenge())
            ])

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(
                    .post, "/api/v1/auth/passkey-tokens", raw: answer, contentType: "application/json")
            }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.text))")
            #expect(
                replies.allSatisfy { $0.status == .created || $0.status == .unauthorized }, "\(replies.map(\.text))")
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_passkey_check_in_sent_ten_times_at_once_is_verified_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            var verified = try await VerifiedClassroom.open(servers[0])
            let body = try Self.json(try await verified.body(servers[0]))
            let room = verified.room

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(
                    .post, "/api/v1/check-ins", as: room.student, raw: body, contentType: "application/json")
            }

            // Every answer says the student is in; one of them wrote it, and the challenge served once.
            #expect(replies.allSatisfy { $0.status == .created || $0.status == .ok }, "\(replies.map(\.text))")
            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.status.code))")
            let verifications = try await database.count(
                "SELECT COUNT(*) AS n FROM passkey_verifications WHERE session_id = \(room.sessionID)")
            #expect(verifications == 1)
            #expect(try await database.count("SELECT COUNT(*) AS n FROM passkey_challenges") == 0)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_ticket_scanned_signed_out_and_shared_checks_in_one_student(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            var students: [Account] = []
            for index in 0..<10 { students.append(try await room.enrol(servers[0], "Sharer \(index)")) }
            let crowd = students
            for round in 0..<5 {
                let ticket = try await room.scan(servers[0])  // scanned signed out, then passed round
                let replies = try await Self.atOnce(2, over: servers) { api, index in
                    try await api.call(
                        .post, "/api/v1/check-ins", as: crowd[round * 2 + index], json: ["ticket": ticket])
                }
                #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.text))")
                #expect(replies.allSatisfy { $0.status == .created || $0.errorCode == "invalid_code" })
            }
            // One student per ticket holds a record and its evidence: the refused ones wrote nothing.
            let rows = try await database.count(
                "SELECT COUNT(*) AS n FROM attendance WHERE session_id = \(room.sessionID)")
            let evidence = try await database.count(
                "SELECT COUNT(*) AS n FROM check_in_evidence WHERE session_id = \(room.sessionID)")
            #expect(rows == 5 && evidence == 5)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func ten_starts_of_one_attempt_at_once_make_one_attempt(_ ground: RaceGround) async throws {
        try await ground.run { servers, _ in
            let quiz = try await QuizRoom.start(servers[0])

            let replies = try await Self.atOnce(10, over: servers) { api, _ in try await quiz.attempt(api) }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.status.code))")
            #expect(replies.allSatisfy { $0.status == .created || $0.status == .ok }, "\(replies.map(\.text))")
            #expect(Set(replies.compactMap { $0.int("attempt.id") }).count == 1, "one attempt for everyone")
        }
    }

    @Test(arguments: RaceGround.allCases)
    func ten_opens_of_one_scheduled_session_open_it_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let (teacher, courseID, _) = try await servers[0].teacherWithCourse()
            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let created = try await servers[0].call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["scheduledAt": later])
            let sessionID = try #require(created.int("session.id"))

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(.post, "/api/v1/sessions/\(sessionID)/open", as: teacher)
            }

            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.text))")
            #expect(replies.allSatisfy { $0.status == .ok || $0.errorCode == "session_already_open" })
            let opened = try await database.count(
                "SELECT COUNT(*) AS n FROM session_events WHERE session_id = \(sessionID) AND kind = 'session_opened'")
            #expect(opened == 1, "the room was told once")
        }
    }

    @Test(arguments: RaceGround.allCases)
    func ten_undos_of_one_change_at_once_undo_it_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            for index in 0..<25 { _ = try await room.enrol(servers[0], "Undone \(index)") }
            let marked = try await servers[0].call(
                .post, "/api/v1/sessions/\(room.sessionID)/attendance", as: room.teacher,
                json: ["filter": "not_checked_in", "status": "excused", "reason": "Field trip"])
            #expect(marked.int("batch.changed") == 26, "\(marked.text)")
            let batch = try #require(marked.int("batch.id"))

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
            }

            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.status.code))")
            #expect(replies.allSatisfy { $0.status == .ok || $0.errorCode == "already_undone" })
            let audit = try await database.count(
                "SELECT COUNT(*) AS n FROM attendance_audit WHERE session_id = \(room.sessionID)")
            #expect(audit == 52, "26 entries for the change and 26 for its undo")
            try await expectRecordsAgreeWithAudit(database, session: room.sessionID)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func an_undo_racing_a_new_change_loses_no_acknowledged_mark(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            var students: [Int64] = [room.student.id]
            for index in 0..<9 { students.append(try await room.enrol(servers[0], "Marked \(index)").id) }
            let everyone = students
            let path = "/api/v1/sessions/\(room.sessionID)/attendance"
            for round in 0..<6 {
                let first = try await servers[0].call(
                    .post, path, as: room.teacher,
                    json: ["studentIds": everyone, "status": round % 2 == 0 ? "excused" : "absent"])
                let batch = try #require(first.int("batch.id"), "\(first.text)")
                let newStatus = round % 2 == 0 ? "late" : "present"
                let replies = try await Self.atOnce(2, over: servers) { api, index in
                    index == 0
                        ? try await api.call(.post, "/api/v1/attendance-batches/\(batch)/undo", as: room.teacher)
                        : try await api.call(
                            .post, path, as: room.teacher, json: ["studentIds": everyone, "status": newStatus])
                }
                let (undo, mark) = (replies[0], replies[1])
                // The new change always stands: an undo that came first went before it, one that came later is
                // refused because it is no longer the latest change.
                #expect(mark.status == .created, "\(mark.text)")
                #expect(undo.status == .ok || undo.errorCode == "not_latest", "\(undo.text)")
                let statuses = try await database.statuses(session: room.sessionID)
                #expect(everyone.allSatisfy { statuses[$0] == newStatus }, "round \(round): \(statuses)")
                try await expectRecordsAgreeWithAudit(database, session: room.sessionID)
            }
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_teachers_mark_racing_the_students_check_in_leaves_the_mark(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            for index in 0..<8 {
                let student = try await room.enrol(servers[0], "Arriving \(index)")
                let replies = try await Self.atOnce(2, over: servers) { api, side in
                    side == 0
                        ? try await room.checkIn(api, student)
                        : try await api.call(
                            .put, "/api/v1/sessions/\(room.sessionID)/attendance/\(student.id)", as: room.teacher,
                            json: ["status": "excused", "reason": "Seen at the door"])
                }
                #expect(replies.allSatisfy { [.ok, .created].contains($0.status) }, "\(replies.map(\.text))")
                let statuses = try await database.statuses(session: room.sessionID)
                // The teacher's mark came last, or the check-in found it there: either way it stands.
                #expect(statuses[student.id] == "excused", "\(replies.map(\.text))")
            }
            try await expectRecordsAgreeWithAudit(database, session: room.sessionID)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func ten_starts_of_one_quiz_in_one_session_run_it_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            let quiz = try await servers[0].call(
                .post, "/api/v1/courses/\(room.courseID)/quizzes", as: room.teacher, json: quizBody)
            let quizID = try #require(quiz.int("quiz.id"), "\(quiz.text)")

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(
                    .post, "/api/v1/sessions/\(room.sessionID)/quiz-runs", as: room.teacher, json: ["quizId": quizID])
            }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.text))")
            #expect(replies.allSatisfy { $0.status == .created || $0.errorCode == "quiz_already_running" })
            #expect(try await database.count("SELECT COUNT(*) AS n FROM quiz_runs") == 1)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func marking_everyone_not_checked_in_while_the_room_checks_in_keeps_every_check_in(
        _ ground: RaceGround
    ) async throws {
        try await ground.run { servers, database in
            var room = try await Classroom.open(servers[0])
            var students: [Account] = []
            for index in 0..<20 { students.append(try await room.enrol(servers[0], "Late Comer \(index)")) }
            let crowd = students
            for round in 0..<4 {
                if round > 0 {
                    _ = try await servers[0].call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
                    let next = try await servers[0].call(
                        .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: [:])
                    room.sessionID = try #require(next.int("session.id"), "\(next.text)")
                }
                var tickets: [String] = []
                for student in crowd { tickets.append(try await room.scan(servers[0], as: student)) }
                let (scanned, session) = (tickets, room)

                // Index 0 marks everyone not checked in absent; the others check in at the same moment.
                let replies = try await Self.atOnce(21, over: servers) { api, index in
                    index == 0
                        ? try await api.call(
                            .post, "/api/v1/sessions/\(session.sessionID)/attendance", as: session.teacher,
                            json: ["filter": "not_checked_in", "status": "absent"])
                        : try await api.call(
                            .post, "/api/v1/check-ins", as: crowd[index - 1], json: ["ticket": scanned[index - 1]])
                }

                #expect(replies[0].status == .created, "\(replies[0].text)")
                let statuses = try await database.statuses(session: room.sessionID)
                for (student, reply) in zip(crowd, replies.dropFirst()) where reply.status == .created {
                    #expect(
                        statuses[student.id] == "present", "round \(round): a check-in answered 201 was overwritten")
                }
                try await expectRecordsAgreeWithAudit(database, session: room.sessionID)
            }
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_course_edited_while_it_is_archived_stays_archived(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let (teacher, courseID, _) = try await servers[0].teacherWithCourse()
            let path = "/api/v1/courses/\(courseID)"
            for round in 0..<6 {
                let replies = try await Self.atOnce(2, over: servers) { api, index in
                    index == 0
                        ? try await api.call(.patch, path, as: teacher, json: ["archived": true])
                        : try await api.call(.patch, path, as: teacher, json: ["description": "Round \(round)"])
                }
                #expect(replies[0].status == .ok, "\(replies[0].text)")
                // The edit went first, or was refused because the course was archived: never undoes the archive.
                #expect(replies[1].status == .ok || replies[1].errorCode == "course_archived", "\(replies[1].text)")
                let archived = try await database.count(
                    "SELECT COUNT(*) AS n FROM courses WHERE id = \(courseID) AND archived_at IS NOT NULL")
                #expect(archived == 1, "round \(round): the edit un-archived the course")
                let restored = try await servers[0].call(.patch, path, as: teacher, json: ["archived": false])
                #expect(restored.status == .ok, "\(restored.text)")
            }
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_address_registered_ten_times_at_once_makes_one_account(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let replies = try await Self.atOnce(10, over: servers) { api, index in
                try await api.call(
                    .post, "/api/v1/auth/register",
                    json: [
                        "name": "Dee Double \(index)", "email": "dee.double@school.test", "password": API.password,
                        "studentNumber": "S-\(index)",
                    ])
            }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.text))")
            #expect(
                replies.allSatisfy { $0.status == .created || $0.errorCode == "email_taken" }, "\(replies.map(\.text))")
            #expect(try await database.count("SELECT COUNT(*) AS n FROM users") == 1)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func one_assistant_added_ten_times_at_once_is_added_once(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let (teacher, courseID, _) = try await servers[0].teacherWithCourse()
            let helper = try await servers[0].register("Hal Helper")

            let replies = try await Self.atOnce(10, over: servers) { api, _ in
                try await api.call(
                    .post, "/api/v1/courses/\(courseID)/staff", as: teacher,
                    json: ["email": helper.email, "role": "assistant"])
            }

            #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.text))")
            #expect(replies.allSatisfy { $0.status == .created || $0.status == .ok }, "\(replies.map(\.text))")
            #expect(try await database.count("SELECT COUNT(*) AS n FROM course_staff") == 1)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_device_forgotten_while_it_signs_in_leaves_no_session_behind(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let pia = try await servers[0].register("Pia Remembered")
            try await UserStore(database: database).confirmPhone(id: pia.id, phone: "+447700900160")
            let devices = RememberedDevices(
                database: database, keys: ServerKeys(database: database), tokens: AccessTokenStore(database: database))
            let remembered = try await devices.remember(userID: pia.id, phone: "+447700900160", name: "Pia's phone")
            let cookie = "rollcall_device=\(remembered.cookie)"

            // Index 0 forgets the device from the Devices page; the others continue as Pia with it at that moment.
            let replies = try await Self.atOnce(10, over: servers) { api, index in
                index == 0
                    ? try await api.call(.delete, "/api/v1/me/remembered-devices/\(remembered.device.id)", as: pia)
                    : try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie])
            }

            #expect(replies[0].status == .noContent, "\(replies[0].text)")
            // Whatever sign-in went through before the forget, its session went with the device.
            for reply in replies.dropFirst() where reply.status == .ok {
                let session = try RememberedDeviceTests.sessionCookie(reply)
                let me = try await servers[1].call(.get, "/api/v1/me", headers: [.cookie: session])
                #expect(me.status == .unauthorized, "a session outlived its forgotten device")
            }
            #expect(replies.dropFirst().allSatisfy { $0.status == .ok || $0.errorCode == "device_not_remembered" })
        }
    }

    @Test(arguments: RaceGround.allCases)
    func two_admins_disabling_each_other_at_once_leave_one_admin(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let hash = try await PasswordHasher(cost: 4).hash(API.password)
            var admins: [Account] = []
            for name in ["Ada Admin", "Bea Admin"] {
                let email = name.lowercased().replacingOccurrences(of: " ", with: ".") + "@school.test"
                _ = try await UserStore(database: database).create(
                    NewUser(
                        name: name, email: email, passwordHash: hash, role: .admin, studentNumber: nil, approved: true,
                        emailVerified: true))
                admins.append(try await servers[0].signIn(email))
            }
            let pair = admins

            let replies = try await Self.atOnce(2, over: servers) { api, index in
                try await api.call(.post, "/api/v1/admin/users/\(pair[1 - index].id)/disable", as: pair[index])
            }

            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies.map(\.text))")
            // The other finds itself disabled: its token already gone, or its account found disabled under the lock.
            #expect(
                replies.allSatisfy {
                    $0.status == .ok || ["account_disabled", "invalid_token"].contains($0.errorCode)
                },
                "\(replies.map(\.text))")
            let active = try await database.count(
                "SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND NOT disabled")
            #expect(active == 1)
        }
    }

    /// Every record a teacher changed shows what its latest audit entry says it became, and every audited removal
    /// left no record.
    func expectRecordsAgreeWithAudit(
        _ database: Database, session: Int64, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let statuses = try await database.statuses(session: session)
        let latest = try await database.read { sql in
            try await sql.raw(
                """
                SELECT student_id, new_status FROM attendance_audit a
                WHERE session_id = \(bind: session)
                  AND id = (SELECT MAX(id) FROM attendance_audit b
                            WHERE b.session_id = a.session_id AND b.student_id = a.student_id)
                """
            ).all().map {
                (
                    try $0.decode(column: "student_id", as: Int64.self),
                    try $0.decode(column: "new_status", as: String.self)
                )
            }
        }
        for (student, audited) in latest {
            let record = statuses[student]
            #expect(
                record == (audited.isEmpty ? nil : audited),
                "student \(student): record \(record ?? "none"), audit \(audited)",
                sourceLocation: sourceLocation)
        }
    }
}

/// Holds tasks until all have arrived, then lets them go together.
actor Gate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var opened = false

    func wait() async {
        if opened { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Opens once `count` tasks wait (or at once when they are slow to arrive: the race then is smaller, not wrong).
    func open(after count: Int) async {
        let deadline = Date().addingTimeInterval(10)
        while waiting.count < count && Date() < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        opened = true
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }
}

extension Database {
    /// The answer of a `SELECT COUNT(*) AS n` statement.
    func count(_ statement: String) async throws -> Int {
        try await read { sql in
            try await sql.raw(SQLQueryString(statement)).first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    /// Each student's status in a session, as stored.
    func statuses(session: Int64) async throws -> [Int64: String] {
        try await read { sql in
            var statuses: [Int64: String] = [:]
            for row in try await sql.select().columns("student_id", "status").from("attendance")
                .where("session_id", .equal, session).all()
            {
                statuses[try row.decode(column: "student_id", as: Int64.self)] = try row.decode(
                    column: "status", as: String.self)
            }
            return statuses
        }
    }
}
