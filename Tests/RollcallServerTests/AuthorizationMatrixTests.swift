import Foundation
import HTTPTypes
import PasskeyTestSupport
import RollcallCore
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Every operation of the API description, asked by six people, each with the exact status they get.
@Suite("Authorization", .timeLimit(.minutes(5)))
struct AuthorizationMatrixTests {
    /// Who is asking, relative to course C of teacher T; the order of a row's columns.
    enum Asker: String, CaseIterable, Sendable {
        case anonymous, otherStudent, otherTeacher, student, teacher, admin
    }

    /// What one asker sends for a row: the path's ids where they differ from the fixture's, and the body.
    struct Call {
        var parameters: [String: Int64] = [:]
        /// Path parameters that are not ids, such as a projected code.
        var words: [String: String] = [:]
        var json: Any?
        var raw: [UInt8]?
        var contentType: String?
        /// Another token of the asker's account, for a call that uses its token up.
        var token: Account?
        /// A `Cookie` header, for a call a browser's cookie answers for.
        var cookie: String?
    }

    /// One operation, as the API description names it (`POST /courses/{courseID}/sessions`), and the status each
    /// asker gets, in the order of `Asker.allCases`.
    struct Row {
        var operation: String
        var expected: [Int]
        var call: (Asker) async throws -> Call

        init(_ operation: String, _ expected: [Int], _ call: @escaping (Asker) async throws -> Call) {
            self.operation = operation
            self.expected = expected
            self.call = call
        }

        init(
            _ operation: String, _ expected: [Int], parameters: [String: Int64] = [:], json: Any? = nil,
            raw: [UInt8]? = nil, contentType: String? = nil
        ) {
            let call = Call(parameters: parameters, json: json, raw: raw, contentType: contentType)
            self.init(operation, expected) { _ in call }
        }

        func expected(_ asker: Asker) -> Int { expected[Asker.allCases.firstIndex(of: asker)!] }
        func allows(_ asker: Asker) -> Bool { (200..<300).contains(expected(asker)) }
    }

    /// The operations `openapi.yaml` describes, as `METHOD /path`, the prefix its paths are relative to, and the
    /// paths that name a server URL of their own (the scanned link, at the server's root).
    static func documentedOperations(
        filePath: String = #filePath
    ) throws -> (prefix: String, operations: [String], ownServers: [String: String]) {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("Sources/RollcallWords/Resources/openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        var prefix: String?
        var operations: [String] = []
        var ownServers: [String: String] = [:]
        var section = ""
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let key = line.wholeMatch(of: /([a-zA-Z]+):.*/) {
                section = String(key.1)
            } else if section == "servers", prefix == nil, let url = line.wholeMatch(of: #/  - url: (\S+)\s*/#) {
                prefix = String(url.1)
            } else if section == "paths", let match = line.wholeMatch(of: #/  (/\S*):\s*/#) {
                path = String(match.1)
            } else if section == "paths", let path, let url = line.wholeMatch(of: #/      - url: (\S+)\s*/#) {
                ownServers[path] = String(url.1)
            } else if section == "paths", let path,
                let method = line.wholeMatch(of: #/    (get|put|post|patch|delete|head|options|trace):\s*/#)
            {
                operations.append("\(method.1.uppercased()) \(path)")
            }
        }
        return (try #require(prefix, "openapi.yaml names its server's URL"), operations, ownServers)
    }

    @Test func a_course_and_its_session_read_the_same_in_their_lists_as_on_their_own_for_everyone_who_sees_them()
        async throws
    {
        try await withServer { api in
            // Setup: the course's teacher, a co-teacher, an assistant, a student and an admin.
            let room = try await Classroom.open(api)
            let (colleague, _, _) = try await api.teacherWithCourse("Cole Colleague")
            let assistant = try await api.register("Tam Assistant")
            for (person, role) in [(colleague, "teacher"), (assistant, "assistant")] {
                let added = try await api.call(
                    .post, "/api/v1/courses/\(room.courseID)/staff", as: room.teacher,
                    json: ["email": person.email, "role": role])
                #expect(added.status == .created, "\(added.text)")
            }
            let askers = [
                ("teacher", room.teacher), ("co-teacher", colleague), ("assistant", assistant),
                ("student", room.student), ("admin", try await api.admin()),
            ]
            for (who, asker) in askers {
                // The call under test: the course in the list, and on its own.
                let list = try await api.call(.get, "/api/v1/courses", as: asker)
                let detail = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: asker)

                // Validation: one rule decides both, so they show the same fields, the join code included.
                let listed = try #require(
                    list.list("courses").first { ($0["id"] as? NSNumber)?.int64Value == room.courseID },
                    "the \(who) finds the course in their list")
                let alone = try #require(detail.value("course") as? [String: Any])
                func text(_ object: [String: Any]) throws -> String {
                    String(
                        decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys),
                        as: UTF8.self)
                }
                #expect(try text(listed) == text(alone), "the \(who) sees the same course in the list as on its own")
                let sessions = try await api.call(.get, "/api/v1/courses/\(room.courseID)/sessions", as: asker)
                let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: asker)
                let listedSession = try #require(
                    sessions.list("sessions").first { ($0["id"] as? NSNumber)?.int64Value == room.sessionID },
                    "the \(who) finds the session in the course's list")
                let sessionAlone = try #require(session.value("session") as? [String: Any])
                #expect(
                    try text(listedSession) == text(sessionAlone),
                    "the \(who) sees the same session in the list as on its own")
                let manages = who != "assistant" && who != "student"
                #expect(
                    (listed["joinCode"] != nil) == manages,
                    "the \(who) \(manages ? "sees" : "does not see") the join code")
            }
        }
    }

    @Test func the_description_lists_operations_the_way_the_matrix_reads_them() throws {
        let (prefix, operations, ownServers) = try Self.documentedOperations()
        #expect(prefix == "/api/v1")
        #expect(ownServers == ["/C/{code}": "/"])
        #expect(operations.count > 50, "\(operations)")
        #expect(operations.contains("GET /courses/{courseID}"))
        #expect(operations.contains("DELETE /courses/{courseID}/students/{studentID}"))
        #expect(operations.contains("GET /openapi.yaml"))
        #expect(Set(operations).count == operations.count, "each operation once")
    }

    @Test func every_operation_answers_each_asker_exactly_as_it_should() async throws {
        let (prefix, documented, ownServers) = try Self.documentedOperations()
        try await withServer { api in
            /// A fixture step that must work, or the matrix means nothing.
            @discardableResult
            func made(_ reply: Reply, _ status: HTTPResponse.Status, _ what: String) throws -> Reply {
                try #require(reply.status == status, "\(what): \(reply.status.code) \(reply.text)")
                return reply
            }

            // Course C of teacher T, with student S; the others each on a course of their own.
            let admin = try await api.admin()
            let (teacher, course, code) = try await api.teacherWithCourse("Tina Teacher")
            let (otherTeacher, _, otherCode) = try await api.teacherWithCourse("Otto Other")
            let student = try await api.register("Sara Student")
            let otherStudent = try await api.register("Oscar Outsider")
            try made(try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": code]), .ok, "S")
            try made(
                try await api.call(.post, "/api/v1/courses/join", as: otherStudent, json: ["code": otherCode]), .ok,
                "the other student")
            let accounts: [Asker: Account] = [
                .admin: admin, .teacher: teacher, .otherTeacher: otherTeacher, .student: student,
                .otherStudent: otherStudent,
            ]
            // Targets of changes, one for each allowed asker so that each change is a first one.
            let joinable = try made(
                try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Open to all"]), .created,
                "a course to join"
            ).string("course.joinCode")
            // A course of T's that S is on, for S to leave, and whose join code may be renewed.
            let leavable = try made(
                try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Leave me"]), .created,
                "a course to leave")
            try made(
                try await api.call(
                    .post, "/api/v1/courses/join", as: student, json: ["code": leavable.string("course.joinCode") ?? ""]
                ),
                .ok, "S joining the course to leave")
            let leavableID = try #require(leavable.int("course.id"))
            let addable = [try await api.register("Ada Addable"), try await api.register("Abe Addable")]
            let removable = [try await api.register("Rita Removable"), try await api.register("Ron Removable")]
            for account in removable {
                try made(
                    try await api.call(
                        .post, "/api/v1/courses/\(course)/students", as: teacher, json: ["email": account.email]),
                    .created, "enrolling \(account.email)")
            }
            func newSession(_ body: [String: Any]) async throws -> Int64 {
                let reply = try await api.call(.post, "/api/v1/courses/\(course)/sessions", as: teacher, json: body)
                return try #require(try made(reply, .created, "a session").int("session.id"))
            }
            let session = try await newSession([:])
            let spot = try await newSession([
                "settings": ["mode": "spot", "latitude": 52, "longitude": 4, "classroomSize": "small"]
            ])
            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200))
            let scheduled = [
                try await newSession(["scheduledAt": later]), try await newSession(["scheduledAt": later]),
            ]
            let closable = [try await newSession([:]), try await newSession([:])]
            let cancellable = [
                try await newSession(["scheduledAt": later]), try await newSession(["scheduledAt": later]),
            ]
            // A bulk change in a session of its own for each allowed asker, so that each is its session's latest.
            var batches: [Int64] = []
            for _ in 0..<2 {
                let id = try await newSession([:])
                let marked = try await api.call(
                    .post, "/api/v1/sessions/\(id)/attendance", as: teacher,
                    json: ["filter": "not_checked_in", "status": "absent"])
                batches.append(try #require(try made(marked, .created, "a bulk change").int("batch.id")))
            }
            // Assistants to add (one for each allowed asker) and to remove.
            let assistants = [try await api.register("Ann Assist"), try await api.register("Art Assist")]
            let leaving = [try await api.register("Lea Leaving"), try await api.register("Leo Leaving")]
            for account in leaving {
                try made(
                    try await api.call(
                        .post, "/api/v1/courses/\(course)/staff", as: teacher,
                        json: ["email": account.email, "role": "assistant"]), .created, "an assistant")
            }
            var slots: [Int64] = []
            for _ in 0..<2 {
                let added = try await api.call(
                    .post, "/api/v1/courses/\(course)/timetable", as: teacher,
                    json: ["weekday": 2, "time": "23:50", "minutes": 5, "from": "2030-01-01", "until": "2030-01-07"])
                slots.append(try #require(try made(added, .created, "a timetable slot").int("slot.id")))
            }
            var reopenable: [Int64] = []
            for _ in 0..<2 {
                let id = try await newSession([:])
                try made(try await api.call(.post, "/api/v1/sessions/\(id)/close", as: teacher), .ok, "closing")
                reopenable.append(id)
            }
            let png = Pictures.png
            try made(
                try await api.call(.put, "/api/v1/me/picture", as: teacher, raw: png, contentType: "image/png"),
                .noContent, "T's picture")
            try made(
                try await api.call(
                    .put, "/api/v1/courses/\(course)/poster", as: teacher, raw: png, contentType: "image/png"),
                .noContent, "C's poster")
            let renamed = try #require(
                try await api.addPasskey(student, SoftwareAuthenticator.of(student)).int("passkey.id"))
            let removed = try #require(
                try await api.addPasskey(student, SoftwareAuthenticator.of(student)).int("passkey.id"))
            let keyholder = try await api.register("Kim Keyholder")
            let keyholderPhone = SoftwareAuthenticator.of(keyholder, synced: true)  // no counter to keep
            try await api.addPasskey(keyholder, keyholderPhone)
            let signer = try await api.register("Sid Signer")
            let managed = try await api.register("Max Managed")
            let deletable = try await api.register("Del Deletable")
            // A health officer's report about S, which no asker ran and so none may see again.
            let officer = try await api.register("Hana Health")
            try made(
                try await api.call(.post, "/api/v1/admin/users/\(officer.id)/health-officer", as: admin), .ok,
                "granting the health-officer role")
            let report = try #require(
                try made(
                    try await api.call(
                        .post, "/api/v1/exposure-reports", as: officer,
                        json: ["personId": student.id, "reason": "Matrix fixture"]), .created, "a report"
                ).int("report.id"))
            // A quiz running in the open session: S let in with an attempt, two more students with attempts to end,
            // two to let in, quizzes to delete and to start, runs to stop.
            var matrixQuiz = quizBody
            matrixQuiz["questions"] = [
                [
                    "id": "1", "kind": "single_choice", "prompt": "Which?", "points": 1, "options": ["A", "B"],
                    "correct": [1],
                ]
            ]
            func newQuiz() async throws -> Int64 {
                let reply = try await api.call(
                    .post, "/api/v1/courses/\(course)/quizzes", as: teacher, json: matrixQuiz)
                return try #require(try made(reply, .created, "a quiz").int("quiz.id"))
            }
            func newRun(_ quizID: Int64) async throws -> Int64 {
                let reply = try await api.call(
                    .post, "/api/v1/sessions/\(session)/quiz-runs", as: teacher, json: ["quizId": quizID])
                return try #require(try made(reply, .created, "a quiz run").int("run.id"))
            }
            func quizTaker(_ name: String, run: Int64) async throws -> (Account, Int64) {
                let account = try await api.register(name)
                try made(
                    try await api.call(.post, "/api/v1/courses/join", as: account, json: ["code": code]), .ok, name)
                try made(
                    try await api.call(
                        .post, "/api/v1/quiz-runs/\(run)/admissions", as: teacher, json: ["studentId": account.id]),
                    .created, "letting \(name) in")
                let attempt = try await api.call(
                    .post, "/api/v1/quiz-runs/\(run)/attempts", as: account, json: ["deviceId": "matrix"])
                return (account, try #require(try made(attempt, .created, "\(name)'s attempt").int("attempt.id")))
            }
            let quiz = try await newQuiz()
            let run = try await newRun(quiz)
            try made(
                try await api.call(
                    .post, "/api/v1/quiz-runs/\(run)/admissions", as: teacher, json: ["studentId": student.id]),
                .created, "letting S in")
            let attempt = try #require(
                try made(
                    try await api.call(.post, "/api/v1/quiz-runs/\(run)/attempts", as: student, json: [:]), .created,
                    "S's attempt"
                ).int("attempt.id"))
            let endable = [
                try await quizTaker("Ed Endable", run: run).1, try await quizTaker("Eve Endable", run: run).1,
            ]
            var admittable: [Account] = []
            for name in ["Al Admittable", "Ann Admittable"] {
                let account = try await api.register(name)
                try made(
                    try await api.call(.post, "/api/v1/courses/join", as: account, json: ["code": code]), .ok, name)
                admittable.append(account)
            }
            let deletableQuizzes = [try await newQuiz(), try await newQuiz()]
            let startable = [try await newQuiz(), try await newQuiz()]
            let stoppable = [try await newRun(try await newQuiz()), try await newRun(try await newQuiz())]
            /// A fresh account like the asker's, for a call that deletes it: a student of C, one of another course.
            func leaver(_ asker: Asker) async throws -> Account? {
                switch asker {
                case .student, .otherStudent:
                    let account = try await api.register("Lee Leaver \(asker.rawValue)")
                    let joined = try await api.call(
                        .post, "/api/v1/courses/join", as: account,
                        json: ["code": asker == .student ? code : otherCode])
                    try made(joined, .ok, "the leaver joins")
                    return account
                default: return accounts[asker]
                }
            }
            /// A browser remembered for S, made on first need: the matrix changes S's password and number.
            @Sendable func studentsDevice() async throws -> Int64 {
                let listed = try await api.call(.get, "/api/v1/me/remembered-devices", as: student)
                if let known = listed.list("devices").first?["id"] as? Int { return Int64(known) }
                try await api.confirmPhone(student, "+447700900700")
                _ = try await api.rememberedDevice(student, "+447700900700")
                let made = try await api.call(.get, "/api/v1/me/remembered-devices", as: student)
                return Int64(try #require(made.list("devices").first?["id"] as? Int, "S's remembered device"))
            }
            let fixture: [String: Int64] = [
                "courseID": course, "sessionID": session, "studentID": student.id, "userID": teacher.id,
                "passkeyID": renamed, "reportID": report, "quizID": quiz, "runID": run, "attemptID": attempt,
                "questionID": 1,
            ]
            /// The target for the first allowed asker, the teacher, or the second, the admin.
            func target<T>(_ asker: Asker, _ targets: [T]) -> T { asker == .admin ? targets[1] : targets[0] }
            let credentials = ["email": signer.email, "password": API.password]

            //                          anonymous, otherStudent, otherTeacher, student, teacher, admin
            let rows: [Row] = [
                Row("POST /auth/register", [201, 201, 201, 201, 201, 201]) { asker in
                    Call(json: [
                        "name": "New \(asker.rawValue)", "email": "new.\(asker.rawValue.lowercased())@school.test",
                        "password": API.password,
                    ])
                },
                Row("POST /auth/verify-email", [200, 200, 200, 200, 200, 200]) { asker in
                    let newcomer = try await api.register("Vera \(asker.rawValue)")
                    let mail = try #require(try await api.outbox().first { $0.recipient == newcomer.email })
                    let token = try #require(mail.body.firstMatch(of: /token=([\w-]+)/)?.1)
                    return Call(json: ["token": String(token)])
                },
                // The admin's address was confirmed when the admin was made, and the teachers' before they taught.
                Row("POST /auth/resend-verification", [401, 202, 409, 202, 409, 409]),
                // The same answer for everyone, and for an address without an account.
                Row("POST /auth/password-reset", [202, 202, 202, 202, 202, 202]) { asker in
                    Call(json: ["email": asker == .admin ? "nobody.here@school.test" : signer.email])
                },
                Row("POST /auth/password-reset/complete", [204, 204, 204, 204, 204, 204]) { asker in
                    let forgetful = try await api.register("Fay Forgetful \(asker.rawValue)")
                    try made(
                        try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": forgetful.email]),
                        .accepted, "asking for a link")
                    let mail = try #require(
                        try await api.outbox().first { $0.recipient == forgetful.email && $0.body.contains("reset") })
                    let token = try #require(mail.body.firstMatch(of: /token=([\w-]+)/)?.1)
                    return Call(json: ["token": String(token), "newPassword": "a new password"])
                },
                // The same answer for any number, with an account or without.
                Row("POST /auth/phone-code", [202, 202, 202, 202, 202, 202]) { asker in
                    Call(json: ["phone": "+44770090010\(Asker.allCases.firstIndex(of: asker)!)"])
                },
                Row("POST /auth/phone-session", [200, 200, 200, 200, 200, 200]) { asker in
                    let phone = "+44770090020\(Asker.allCases.firstIndex(of: asker)!)"
                    return Call(json: ["phone": phone, "code": try await api.phoneSignInCode("Pia \(asker)", phone)])
                },
                Row("POST /auth/phone-tokens", [201, 201, 201, 201, 201, 201]) { asker in
                    let phone = "+44770090030\(Asker.allCases.firstIndex(of: asker)!)"
                    return Call(json: ["phone": phone, "code": try await api.phoneSignInCode("Tom \(asker)", phone)])
                },
                // A remembered browser signs its own person in, whoever else's token comes along.
                Row("POST /auth/device-session", [200, 200, 200, 200, 200, 200]) { asker in
                    let phone = "+44770090060\(Asker.allCases.firstIndex(of: asker)!)"
                    let holder = try await api.register("Dee \(asker)")
                    try await api.confirmPhone(holder, phone)
                    return Call(cookie: try await api.rememberedDevice(holder, phone))
                },
                // Without a cookie there is nothing to forget, and the answer is the same for everyone.
                Row("DELETE /auth/device", [204, 204, 204, 204, 204, 204]),
                Row("POST /auth/session", [200, 200, 200, 200, 200, 200], json: credentials),
                // Without a cookie there is no session to end, and the answer is the same for everyone.
                Row("DELETE /auth/session", [204, 204, 204, 204, 204, 204]),
                Row("POST /auth/tokens", [201, 201, 201, 201, 201, 201], json: credentials),
                Row("DELETE /auth/tokens/current", [401, 204, 204, 204, 204, 204]) { asker in
                    guard let account = accounts[asker] else { return Call() }
                    return Call(token: try await api.signIn(account.email))
                },
                Row("GET /me", [401, 200, 200, 200, 200, 200]),
                Row("PATCH /me", [401, 200, 200, 200, 200, 200], json: ["about": "Here for the matrix."]),
                Row(
                    "PUT /me/password", [401, 204, 204, 204, 204, 204],
                    json: ["currentPassword": API.password, "newPassword": API.password]),
                Row("PUT /me/picture", [401, 204, 204, 204, 204, 204], raw: png, contentType: "image/png"),
                Row("POST /me/phone", [401, 202, 202, 202, 202, 202]) { asker in
                    Call(json: ["phone": "+44770090040\(Asker.allCases.firstIndex(of: asker)!)"])
                },
                Row("POST /me/phone/confirm", [401, 200, 200, 200, 200, 200]) { asker in
                    let phone = "+44770090050\(Asker.allCases.firstIndex(of: asker)!)"
                    guard let account = accounts[asker] else { return Call(json: ["phone": phone, "code": "123456"]) }
                    try made(
                        try await api.call(.post, "/api/v1/me/phone", as: account, json: ["phone": phone]), .accepted,
                        "a confirmation code")
                    return Call(json: ["phone": phone, "code": try await api.textedCode(to: phone)])
                },
                Row("DELETE /me/phone", [401, 204, 204, 204, 204, 204]),
                Row("GET /me/remembered-devices", [401, 200, 200, 200, 200, 200]),
                // S's own device: nobody else may forget it, and an admin neither.
                Row("DELETE /me/remembered-devices/{deviceID}", [401, 404, 404, 204, 404, 404]) { _ in
                    Call(parameters: ["deviceID": try await studentsDevice()])
                },
                Row("GET /users/{userID}/picture", [401, 200, 200, 200, 200, 200]),
                Row("GET /courses", [401, 200, 200, 200, 200, 200]),
                Row("POST /courses", [401, 403, 201, 403, 201, 201], json: ["name": "New course"]),
                Row("POST /courses/join", [401, 200, 403, 200, 403, 403], json: ["code": joinable ?? ""]),
                Row("GET /courses/{courseID}", [401, 403, 403, 200, 200, 200]),
                Row("POST /courses/{courseID}/join-code", [401, 403, 403, 403, 200, 200]) { _ in
                    Call(parameters: ["courseID": leavableID])
                },
                Row("GET /courses/{courseID}/staff", [401, 403, 403, 403, 200, 200]),
                // The fixture's course is not linked to a learning platform: its staff are told so.
                Row("GET /courses/{courseID}/lti", [401, 403, 403, 403, 404, 404]),
                Row("POST /courses/{courseID}/lti/sync", [401, 403, 403, 403, 404, 404]),
                Row("POST /courses/{courseID}/lti/grades", [401, 403, 403, 403, 404, 404]),
                // A student's own choice; the teacher turns the course's notices on and off with PATCH.
                Row(
                    "PUT /courses/{courseID}/absence-notices", [401, 403, 403, 200, 403, 403], json: ["receive": false]),
                Row("POST /courses/{courseID}/staff", [401, 403, 403, 403, 201, 201]) { asker in
                    Call(json: ["email": target(asker, assistants).email, "role": "assistant"])
                },
                Row("DELETE /courses/{courseID}/staff/{userID}", [401, 403, 403, 403, 204, 204]) { asker in
                    Call(parameters: ["userID": target(asker, leaving).id])
                },
                Row("POST /courses/{courseID}/leave", [401, 403, 403, 204, 403, 403]) { _ in
                    Call(parameters: ["courseID": leavableID])
                },
                Row("PATCH /courses/{courseID}", [401, 403, 403, 403, 200, 200], json: ["plannedSessions": 10]),
                Row("GET /courses/{courseID}/poster", [401, 403, 403, 200, 200, 200]),
                Row(
                    "PUT /courses/{courseID}/poster", [401, 403, 403, 403, 204, 204], raw: png,
                    contentType: "image/png"),
                Row("GET /courses/{courseID}/students", [401, 403, 403, 403, 200, 200]),
                Row("POST /courses/{courseID}/students", [401, 403, 403, 403, 201, 201]) { asker in
                    Call(json: ["email": target(asker, addable).email])
                },
                Row("DELETE /courses/{courseID}/students/{studentID}", [401, 403, 403, 403, 204, 204]) { asker in
                    Call(parameters: ["studentID": target(asker, removable).id])
                },
                Row("GET /courses/{courseID}/sessions", [401, 403, 403, 200, 200, 200]),
                Row("POST /courses/{courseID}/sessions", [401, 403, 403, 403, 201, 201], json: [:]),
                Row("GET /sessions/{sessionID}", [401, 403, 403, 200, 200, 200]),
                Row("POST /sessions/{sessionID}/open", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["sessionID": target(asker, scheduled)])
                },
                Row("POST /sessions/{sessionID}/close", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["sessionID": target(asker, closable)])
                },
                Row("PATCH /sessions/{sessionID}", [401, 403, 403, 403, 200, 200], json: ["title": "Renamed"]),
                Row("DELETE /sessions/{sessionID}", [401, 403, 403, 403, 204, 204]) { asker in
                    Call(parameters: ["sessionID": target(asker, cancellable)])
                },
                Row("POST /sessions/{sessionID}/extend", [401, 403, 403, 403, 200, 200], json: ["minutes": 1]),
                Row("POST /sessions/{sessionID}/reopen", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["sessionID": target(asker, reopenable)], json: ["minutes": 5])
                },
                Row("GET /courses/{courseID}/audit", [401, 403, 403, 403, 200, 200]),
                Row("GET /courses/{courseID}/timetable", [401, 403, 403, 403, 200, 200]),
                Row(
                    "POST /courses/{courseID}/timetable", [401, 403, 403, 403, 201, 201],
                    json: ["weekday": 3, "time": "23:55", "minutes": 5, "from": "2030-01-01", "until": "2030-01-14"]),
                Row("DELETE /courses/{courseID}/timetable/{slotID}", [401, 403, 403, 403, 204, 204]) { asker in
                    Call(parameters: ["slotID": target(asker, slots)])
                },
                Row("GET /sessions/{sessionID}/projector", [401, 403, 403, 403, 200, 200]),
                // WebSocket routes, asked with a plain GET: an allowed one is told to upgrade (426).
                Row("GET /sessions/{sessionID}/projector/live", [401, 403, 403, 403, 426, 426]),
                Row("GET /sessions/{sessionID}/live", [401, 403, 403, 403, 426, 426]),
                // Anyone may scan; a browser (no token here, and no JSON asked for) is sent on to the check-in page.
                Row("GET /C/{code}", [302, 200, 200, 200, 200, 200]) { _ in
                    let url = try #require(
                        try await api.call(.get, "/api/v1/sessions/\(session)/projector", as: teacher).string("url"))
                    return Call(words: ["code": String(try #require(url.split(separator: "/").last))])
                },
                // The other student is on another course: `not_enrolled`.
                Row(
                    "POST /check-ins", [401, 403, 403, 201, 403, 403],
                    json: ["sessionId": spot, "location": Classroom.here]),
                Row("GET /passkeys", [401, 200, 200, 200, 200, 200]),
                Row("POST /passkeys", [401, 201, 201, 201, 201, 201]) { asker in
                    guard let account = accounts[asker] else {
                        return Call(json: ["credential": SoftwareAuthenticator().registrationJSON(challenge: [1])])
                    }
                    let challenge = try await api.registrationChallenge(account)
                    return Call(json: [
                        "name": "Matrix key",
                        "credential": SoftwareAuthenticator.of(account).registrationJSON(challenge: challenge),
                    ])
                },
                Row("POST /passkeys/options", [401, 200, 200, 200, 200, 200]),
                // Another person's passkey is not found, whoever asks: its id tells nothing.
                Row("PATCH /passkeys/{passkeyID}", [401, 404, 404, 200, 404, 404], json: ["name": "Renamed"]),
                Row(
                    "DELETE /passkeys/{passkeyID}", [401, 404, 404, 204, 404, 404], parameters: ["passkeyID": removed]),
                Row("POST /auth/passkey-options", [200, 200, 200, 200, 200, 200]),
                Row("POST /auth/passkey-session", [200, 200, 200, 200, 200, 200]) { _ in
                    var phone = keyholderPhone
                    return Call(json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge())])
                },
                Row("POST /auth/passkey-tokens", [201, 201, 201, 201, 201, 201]) { _ in
                    var phone = keyholderPhone
                    return Call(json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge())])
                },
                Row("GET /courses/{courseID}/verification", [401, 403, 403, 200, 200, 200]),
                Row("PUT /courses/{courseID}/verification", [401, 403, 403, 403, 200, 200], json: ["required": false]),
                Row("GET /sessions/{sessionID}/verifications", [401, 403, 403, 403, 200, 200]),
                Row("POST /check-ins/passkey-options", [401, 403, 403, 200, 403, 403], json: ["sessionId": session]),
                Row(
                    "PUT /sessions/{sessionID}/attendance/{studentID}", [401, 403, 403, 403, 200, 200],
                    json: ["status": "excused", "reason": "A note from home"]),
                Row(
                    "POST /sessions/{sessionID}/attendance", [401, 403, 403, 403, 201, 201],
                    json: ["filter": "not_checked_in", "status": "absent"]),
                Row("POST /attendance-batches/{batchID}/undo", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["batchID": target(asker, batches)])
                },
                Row("GET /sessions/{sessionID}/audit", [401, 403, 403, 403, 200, 200]),
                Row("GET /sessions/{sessionID}/report.csv", [401, 403, 403, 403, 200, 200]),
                Row("GET /courses/{courseID}/report.csv", [401, 403, 403, 403, 200, 200]),
                Row("GET /courses/{courseID}/absentees", [401, 403, 403, 403, 200, 200]),
                Row("GET /courses/{courseID}/students/{studentID}/attendance", [401, 403, 403, 200, 200, 200]),
                Row("POST /courses/{courseID}/roster-import", [401, 403, 403, 403, 200, 200]) { asker in
                    let csv = "Name,Email\nIvy Invited,ivy.\(asker.rawValue.lowercased())@school.test\n"
                    return Call(raw: Array(csv.utf8), contentType: "text/csv")
                },
                Row("GET /courses/{courseID}/invitations", [401, 403, 403, 403, 200, 200]),
                Row("GET /admin/users", [401, 403, 403, 403, 403, 200]),
                Row(
                    "POST /admin/users/{userID}/approve", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id]),
                Row(
                    "POST /admin/users/{userID}/disable", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id]),
                Row(
                    "POST /admin/users/{userID}/enable", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id]),
                Row(
                    "PUT /admin/users/{userID}/role", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id], json: ["role": "teacher"]),
                Row(
                    "POST /admin/users/{userID}/password-reset", [401, 403, 403, 403, 403, 202],
                    parameters: ["userID": managed.id]),
                Row("GET /admin/outbox", [401, 403, 403, 403, 403, 200]),
                Row("GET /admin/lti-platforms", [401, 403, 403, 403, 403, 200]),
                Row(
                    "POST /admin/lti-platforms", [401, 403, 403, 403, 403, 201],
                    json: [
                        "name": "Matrix Moodle", "issuer": "https://moodle.matrix.test", "clientId": "m-1",
                        "deploymentIds": ["1"], "authorizationUrl": "https://moodle.matrix.test/auth",
                        "tokenUrl": "https://moodle.matrix.test/token", "jwksUrl": "https://moodle.matrix.test/jwks",
                    ]),
                // The platform the row above registered.
                Row(
                    "PATCH /admin/lti-platforms/{platformID}", [401, 403, 403, 403, 403, 200],
                    parameters: ["platformID": 1], json: ["name": "Matrix Moodle 2"]),
                Row(
                    "DELETE /admin/lti-platforms/{platformID}", [401, 403, 403, 403, 403, 204],
                    parameters: ["platformID": 1]),
                Row("POST /admin/lti-keys/rotate", [401, 403, 403, 403, 403, 200]),
                Row("POST /admin/lti-registration-links", [401, 403, 403, 403, 403, 201]),
                // No launch waits under this code: the same answer for everyone.
                Row("POST /lti-pending/{code}", [400, 400, 400, 400, 400, 400]) { _ in
                    Call(words: ["code": "no-such-launch"], json: ["link": false])
                },
                // Only a health officer runs reports; an admin sees their audit, not their contents.
                Row(
                    "POST /exposure-reports", [401, 403, 403, 403, 403, 403],
                    json: ["personId": student.id, "reason": "Matrix"]),
                Row("GET /exposure-reports/{reportID}", [401, 403, 403, 403, 403, 403]),
                Row("GET /exposure-reports/{reportID}/report.csv", [401, 403, 403, 403, 403, 403]),
                Row("GET /admin/exposure-reports", [401, 403, 403, 403, 403, 200]),
                Row("GET /me/exposure-reports", [401, 200, 200, 200, 200, 200]),
                Row("POST /exposure-reports/{reportID}/proximity-request", [401, 403, 403, 403, 403, 403]),
                // Proximity is each person's own: on, pseudo-IDs, and an upload (of a value nobody was issued).
                Row("GET /me/proximity", [401, 200, 200, 200, 200, 200]),
                Row("PUT /me/proximity", [401, 200, 200, 200, 200, 200], json: ["on": true]),
                Row("POST /me/proximity-ids", [401, 201, 201, 201, 201, 201], json: ["days": 1]),
                Row(
                    "POST /me/proximity-encounters", [401, 201, 201, 201, 201, 201],
                    json: [
                        "encounters": [
                            [
                                "heard": String(repeating: "0a", count: 16), "firstSeen": Date().formatted(.iso8601),
                                "lastSeen": Date().formatted(.iso8601), "signal": -70,
                            ]
                        ]
                    ]),
                Row(
                    "POST /admin/users/{userID}/health-officer", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id]),
                Row(
                    "DELETE /admin/users/{userID}/health-officer", [401, 403, 403, 403, 403, 200],
                    parameters: ["userID": managed.id]),
                Row("GET /me/data", [401, 200, 200, 200, 200, 200]),
                // Teachers of courses and admins keep their accounts: their records must be kept.
                Row("DELETE /me", [401, 204, 409, 204, 409, 409]) { asker in
                    Call(token: try await leaver(asker))
                },
                Row(
                    "DELETE /admin/users/{userID}", [401, 403, 403, 403, 403, 204],
                    parameters: ["userID": deletable.id]),
                Row("GET /courses/{courseID}/quizzes", [401, 403, 403, 403, 200, 200]),
                Row("POST /courses/{courseID}/quizzes", [401, 403, 403, 403, 201, 201], json: matrixQuiz),
                Row("GET /quizzes/{quizID}", [401, 403, 403, 403, 200, 200]),
                Row("PUT /quizzes/{quizID}", [401, 403, 403, 403, 200, 200], json: matrixQuiz),
                Row("DELETE /quizzes/{quizID}", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["quizID": target(asker, deletableQuizzes)])
                },
                Row("POST /quizzes/{quizID}/duplicate", [401, 403, 403, 403, 201, 201]),
                Row("GET /sessions/{sessionID}/quiz-runs", [401, 403, 403, 200, 200, 200]),
                Row("POST /sessions/{sessionID}/quiz-runs", [401, 403, 403, 403, 201, 201]) { asker in
                    Call(json: ["quizId": target(asker, startable)])
                },
                Row("GET /quiz-runs/{runID}", [401, 403, 403, 200, 200, 200]),
                Row("POST /quiz-runs/{runID}/stop", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["runID": target(asker, stoppable)])
                },
                Row("POST /quiz-runs/{runID}/admissions", [401, 403, 403, 403, 201, 201]) { asker in
                    Call(json: ["studentId": target(asker, admittable).id])
                },
                // S has an attempt already: starting again resumes it.
                Row("POST /quiz-runs/{runID}/attempts", [401, 403, 403, 200, 403, 403], json: [:]),
                Row("GET /quiz-runs/{runID}/results", [401, 403, 403, 403, 200, 200]),
                Row("GET /quiz-runs/{runID}/statistics", [401, 403, 403, 403, 200, 200]),
                Row("GET /quiz-runs/{runID}/results.csv", [401, 403, 403, 403, 200, 200]),
                Row("GET /quiz-runs/{runID}/live", [401, 403, 403, 403, 426, 426]),
                Row("GET /quiz-attempts/{attemptID}", [401, 403, 403, 200, 200, 200]),
                Row(
                    "PUT /quiz-attempts/{attemptID}/answers/{questionID}", [401, 403, 403, 200, 403, 403],
                    json: ["sequence": 1, "answer": ["choice": 1]]),
                Row(
                    "POST /quiz-attempts/{attemptID}/flags", [401, 403, 403, 201, 403, 403],
                    json: ["flags": [["kind": "left_page", "occurredAt": "2026-01-01T09:00:00Z"]]]),
                Row(
                    "POST /quiz-attempts/{attemptID}/added-time", [401, 403, 403, 403, 200, 200], json: ["seconds": 60]),
                Row("POST /quiz-attempts/{attemptID}/end", [401, 403, 403, 403, 200, 200]) { asker in
                    Call(parameters: ["attemptID": target(asker, endable)])
                },
                Row(
                    "PUT /quiz-attempts/{attemptID}/marks/{questionID}", [401, 403, 403, 403, 204, 204],
                    json: ["points": 1]),
                // Last of the quiz rows: it closes S's attempt.
                Row("POST /quiz-attempts/{attemptID}/submit", [401, 403, 403, 200, 403, 403]),
                Row("GET /openapi.yaml", [200, 200, 200, 200, 200, 200]),
            ]
            // Outside the API's prefix, and so outside its description.
            let outside: [Row] = [
                Row("GET /healthz", [200, 200, 200, 200, 200, 200]),
                Row("GET /metrics", [200, 200, 200, 200, 200, 200]),
            ]

            let named = rows.map(\.operation)
            for operation in documented where !named.contains(operation) {
                Issue.record("\(operation) is in openapi.yaml but has no row")
            }
            for operation in named where !documented.contains(operation) {
                Issue.record("\(operation) has a row but is not in openapi.yaml")
            }
            for operation in Set(named) where named.filter({ $0 == operation }).count > 1 {
                Issue.record("\(operation) has more than one row")
            }

            for (row, described) in rows.map({ ($0, true) }) + outside.map({ ($0, false) }) {
                try #require(row.expected.count == Asker.allCases.count, "\(row.operation): one status per asker")
                let parts = row.operation.split(separator: " ", maxSplits: 1).map(String.init)
                let server = described ? ownServers[parts[1]] ?? prefix : "/"
                let base = server == "/" ? "" : server
                let method = try #require(HTTPRequest.Method(parts[0]), "\(row.operation)")
                // Refused askers first, so that an allowed change (closing, removing) cannot hide a refusal.
                let order = Asker.allCases.filter { !row.allows($0) } + Asker.allCases.filter { row.allows($0) }
                for asker in order {
                    let call = try await row.call(asker)
                    var path = base + parts[1]
                    for name in parts[1].matches(of: /\{(\w+)\}/).map({ String($0.1) }) {
                        let value = try #require(
                            call.words[name] ?? (call.parameters[name] ?? fixture[name]).map(String.init),
                            "\(row.operation): no \(name)")
                        path = path.replacingOccurrences(of: "{\(name)}", with: value)
                    }
                    let reply = try await api.call(
                        method, path, as: call.token ?? accounts[asker], json: call.json, raw: call.raw,
                        contentType: call.contentType, headers: call.cookie.map { [.cookie: $0] } ?? [:]
                    )
                    #expect(
                        Int(reply.status.code) == row.expected(asker),
                        "\(row.operation) as \(asker.rawValue): expected \(row.expected(asker)), got \(reply.status.code) \(reply.text.prefix(300))"
                    )
                }
            }
        }
    }
}
