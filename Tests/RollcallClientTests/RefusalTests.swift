import ClientTestSupport
import Foundation
import RollcallClient
import RollcallProtocol
import ServerTestSupport
import Testing

/// Each refusal reaches the caller as a `RollcallError` with the server's stable code, its sentence and the HTTP
/// status, and leaves everything stored as it was.
@Suite("RollcallClient refusals", .timeLimit(.minutes(2)))
struct RefusalTests {
    /// Runs `body` and expects the refusal, then checks that no stored row changed.
    static func expectRefused(
        _ api: API, _ code: String, status: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async throws {
        let before = try await api.snapshot()
        await expectRefusal(code, status: status, sourceLocation: sourceLocation, body)
        #expect(
            try await api.snapshot() == before, "a refused request changed stored data", sourceLocation: sourceLocation)
    }

    @Test func signing_in_with_a_wrong_password() async throws {
        try await withServer(setup: .live) { api in
            let student = try await api.register("Sam Student")
            try await Self.expectRefused(api, "invalid_credentials", status: 401) {
                _ = try await api.rollcall().signIn(email: student.email, password: "not the password")
            }
            try await Self.expectRefused(api, "invalid_email", status: 400) {
                _ = try await api.rollcall().signIn(email: "no-at-sign", password: "whatever")
            }
        }
    }

    @Test func courses_refused() async throws {
        try await withServer(setup: .live) { api in
            let teacher = try api.rollcall(try await api.register("Tess Teacher", role: "teacher"))
            let student = try api.rollcall(try await api.register("Sam Student"))
            try await Self.expectRefused(api, "invalid_name", status: 400) {
                _ = try await teacher.createCourse(name: "   ")
            }
            try await Self.expectRefused(api, "invalid_time_zone", status: 400) {
                _ = try await teacher.createCourse(name: "Biology", timeZone: "GMT+2")
            }
            try await Self.expectRefused(api, "forbidden", status: 403) {
                _ = try await student.createCourse(name: "Biology")
            }
            try await Self.expectRefused(api, "not_signed_in", status: 401) {
                _ = try await api.rollcall().courses()
            }
            try await Self.expectRefused(api, "invalid_token", status: 401) {
                _ = try await teacher.signedIn(with: "not-a-token").courses()
            }
        }
    }

    @Test func sessions_refused() async throws {
        try await withServer(setup: .live) { api in
            let teacher = try api.rollcall(try await api.register("Tess Teacher", role: "teacher"))
            let course = try await teacher.createCourse(name: "Biology")
            try await Self.expectRefused(api, "invalid_period", status: 400) {
                _ = try await teacher.openSession(courseID: course.id, settings: .init(period: 1))
            }
            try await Self.expectRefused(api, "course_not_found", status: 404) {
                _ = try await teacher.sessions(courseID: course.id + 1000)
            }
            let session = try await teacher.openSession(courseID: course.id, title: "Monday")
            _ = try await teacher.closeSession(session.id)
            try await Self.expectRefused(api, "session_closed", status: 409) {
                _ = try await teacher.closeSession(session.id)
            }
            try await Self.expectRefused(api, "session_not_found", status: 404) {
                _ = try await teacher.closeSession(session.id + 1000)
            }
        }
    }

    @Test func a_roster_with_bad_rows_lists_each() async throws {
        try await withServer(setup: .live) { api in
            let teacher = try api.rollcall(try await api.register("Tess Teacher", role: "teacher"))
            let course = try await teacher.createCourse(name: "Biology")
            let csv = "name,email\nAda Lovelace,ada@school.test\nNo Address,not-an-email\n,blank@school.test\n"
            let before = try await api.snapshot()
            do {
                _ = try await teacher.importRoster(courseID: course.id, csv: Data(csv.utf8))
                Issue.record("a roster with bad rows was taken")
            } catch let error as RollcallError {
                #expect(error.code == "invalid_rows" && error.status == 422, "\(error)")
                #expect(error.rows.map(\.line) == [3, 4], "\(error.rows)")
                #expect(error.rows.map(\.code) == ["invalid_email", "invalid_name"], "\(error.rows)")
            }
            #expect(try await api.snapshot() == before)
        }
    }

    @Test func check_ins_refused() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["latitude": 52.0, "longitude": 4.0, "radius": 50])
            let student = try api.rollcall(room.student)
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            try await Self.expectRefused(api, "invalid_code", status: 400) {
                _ = try await student.scan(link: "http://localhost:8080/C/NOTACODE")
            }
            let scan = try await student.scan(link: link)
            try await Self.expectRefused(api, "location_required", status: 400) {
                _ = try await student.checkIn(ticket: scan.ticket, proof: CheckInProof(deviceID: "phone-0001"))
            }
            let far = Location(latitude: 52.01, longitude: 4.0, accuracy: 5)
            // Refused for where the phone is: nothing is stored but the teacher's flag and its live event.
            let before = try await api.snapshot()
            await expectRefusal("out_of_range", status: 403) {
                _ = try await student.checkIn(
                    ticket: scan.ticket, proof: CheckInProof(deviceID: "phone-0001", location: { far }))
            }
            var after = try await api.snapshot()
            #expect(after["flags"]?.count == 1 && after["flags"]?.first?.contains("tried_out_of_range") == true)
            after["flags"] = before["flags"]
            after["session_events"] = before["session_events"]
            #expect(after == before, "a refused request changed stored data")
            do {
                _ = try await student.checkIn(ticket: scan.ticket, deviceID: "phone-0001", location: far)
            } catch let error as RollcallError {
                #expect((error.details["distanceMeters"]?.number ?? 0) > 1000, "the distance: \(error.details)")
            }
            let teacherAsStudent = try api.rollcall(room.teacher)
            try await Self.expectRefused(api, "forbidden", status: 403) {
                _ = try await teacherAsStudent.checkIn(ticket: scan.ticket, deviceID: "phone-0002")
            }
        }
    }

    /// The server refuses a teacher's check-in before reading its body. Each refusal must come back as `forbidden`,
    /// not as "could not be reached": a streamed body lost that race about once in 300 requests.
    @Test func a_refusal_before_the_body_is_read_reaches_the_caller() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            let teacher = try api.rollcall(room.teacher)
            let link = try #require(try await teacher.projectorFrame(sessionID: room.sessionID).url)
            let ticket = try await api.rollcall(room.student).scan(link: link).ticket
            let before = try await api.snapshot()
            let codes = try await withThrowingTaskGroup(of: [String].self) { group in
                for lane in 0..<8 {
                    group.addTask {
                        var codes: [String] = []
                        for attempt in 0..<40 {
                            do {
                                _ = try await teacher.checkIn(ticket: ticket, deviceID: "phone-\(lane)-\(attempt)")
                                codes.append("checked in")
                            } catch let error as RollcallError {
                                codes.append(error.status == 403 ? error.code : "\(error.code): \(error.details)")
                            }
                        }
                        return codes
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(codes.count == 320)
            #expect(codes.filter { $0 != "forbidden" } == [])
            #expect(try await api.snapshot() == before, "a refused request changed stored data")
        }
    }

    @Test func the_live_room_of_a_session_one_may_not_see() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            await expectRefusal("session_not_found", status: 404) {
                for try await _ in try api.rollcall(room.teacher).room(sessionID: room.sessionID + 1000) {}
            }
            await expectRefusal("forbidden", status: 403) {
                for try await _ in try api.rollcall(room.student).room(sessionID: room.sessionID) {}
            }
            await expectRefusal("invalid_after", status: 400) {
                for try await _ in try api.rollcall(room.teacher).room(sessionID: room.sessionID, after: 999) {}
            }
        }
    }

    @Test func no_server_at_the_address() async throws {
        // A port that was just free: nothing answers there.
        let network = try await NetworkSwitch.start(to: 9)
        await network.goOffline()
        let url = URL(string: "http://127.0.0.1:\(network.port)")!
        await expectRefusal(ClientErrorCode.networkUnavailable.rawValue, status: nil) {
            _ = try await Rollcall(serverURL: url, token: "t").courses()
        }
        await network.stop()
        await expectRefusal("invalid_code", status: nil) {
            _ = try await Rollcall(serverURL: url).scan(link: "https://example.com/not/a/code")
        }
    }
}
