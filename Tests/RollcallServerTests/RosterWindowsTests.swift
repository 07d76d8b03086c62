import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWeb
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Small windows of a roster closed inside the write: what a request checked before its transaction (the course not
/// archived, the account not erased, the address without an account) is checked again where it writes. A store's
/// write made after the state changed shows it at once, on SQLite and on PostgreSQL; on PostgreSQL with two server
/// processes the races themselves are made certain by a lock the test holds and lets go once both requests wait; and
/// the same requests are also sent at once, round after round.
@Suite("Roster windows", .timeLimit(.minutes(4)))
struct RosterWindowsTests {
    /// The code a store's refusal answers with, as the API would; `nil` when it did not refuse.
    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return ErrorMiddleware.appError(for: error).code
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_course_archived_after_a_request_was_checked_takes_no_student_session_nor_roster_change(
        _ ground: RaceGround
    ) async throws {
        try await ground.run { servers, database in
            let api = servers[0]
            let room = try await Classroom.open(api)
            let newcomer = try await api.register("Nel Newcomer")
            let teacher = try #require(try await UserStore(database: database).find(id: room.teacher.id))
            let archived = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": true])
            #expect(archived.status == .ok, "\(archived.text)")

            // Each write below is what a request checked a moment before the archive goes on to do.
            let courses = CourseStore(database: database)
            let sessionsBefore = try await database.count(
                "SELECT COUNT(*) AS n FROM sessions WHERE course_id = \(room.courseID)")
            #expect(
                await Self.refusal { try await courses.roster.enroll(courseID: room.courseID, studentID: newcomer.id) }
                    == "course_archived")
            #expect(
                await Self.refusal {
                    _ = try await courses.roster.unenroll(courseID: room.courseID, studentID: room.student.id)
                } == "course_archived")
            #expect(
                await Self.refusal {
                    _ = try await SessionStore(database: database).create(
                        courseID: room.courseID, title: "Late", settings: .standard, scheduledAt: nil,
                        openNow: true)
                } == "course_archived")
            #expect(
                await Self.refusal {
                    _ = try await courses.roster.importRoster(
                        courseID: room.courseID,
                        entries: [.init(line: 2, name: "New One", email: "new.one@school.test", studentNumber: nil)],
                        by: teacher)
                } == "course_archived")

            // Nothing changed.
            #expect(try await courses.roster.isEnrolled(courseID: room.courseID, studentID: room.student.id))
            #expect(try await !courses.roster.isEnrolled(courseID: room.courseID, studentID: newcomer.id))
            #expect(try await courses.roster.invitations(courseID: room.courseID).isEmpty)
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM sessions WHERE course_id = \(room.courseID)")
                    == sessionsBefore)
            // A student may still leave an archived course, as before.
            #expect(
                try await courses.roster.unenroll(courseID: room.courseID, studentID: room.student.id, changing: false))
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_walk_in_erased_or_whose_course_was_archived_after_the_check_in_was_decided_joins_nothing(
        _ ground: RaceGround
    ) async throws {
        try await ground.run { servers, database in
            let api = servers[0]
            let room = try await Classroom.open(api)
            let erased = try await api.register("Eda Erased")
            let late = try await api.register("Lea Late")
            // The check-in was decided (not enrolled, may join from the scan); then the account was erased.
            #expect(try await api.call(.delete, "/api/v1/me", as: erased).status == .noContent)

            func walkIn(_ student: Account) async throws -> CheckInOutcome {
                let pending = PendingCheckIn(
                    sessionID: room.sessionID, studentID: student.id, status: .present, at: Date(),
                    evidence: CheckInEvidence(
                        reading: nil, distance: nil, deviceID: "phone-\(student.id)", clientAddress: nil, via: .qr),
                    unboundTicket: nil,
                    followUp: CheckInFollowUp(
                        studentName: "Walk-in", deviceID: "phone-\(student.id)", joins: room.courseID,
                        identity: nil, now: Date()))
                let outcomes = try await database.transaction { sql in
                    try await CheckInBatcher.write([pending], sql: sql)
                }
                return try #require(outcomes.first)
            }
            #expect(try await walkIn(erased) == .joinRefused(.accountDeleted))

            // Decided, then the course archived.
            _ = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": true])
            #expect(try await walkIn(late) == .joinRefused(.courseArchived))

            // Neither joined, checked in, nor claimed a phone.
            for student in [erased, late] {
                #expect(
                    try await !RosterStore(database: database).isEnrolled(
                        courseID: room.courseID, studentID: student.id))
                #expect(
                    try await database.count(
                        "SELECT COUNT(*) AS n FROM attendance WHERE student_id = \(student.id)") == 0)
                #expect(
                    try await database.count(
                        "SELECT COUNT(*) AS n FROM device_bindings WHERE student_id = \(student.id)") == 0)
            }
            // An erased account's join by any other way is refused too.
            #expect(
                await Self.refusal {
                    try await RosterStore(database: database).enroll(courseID: room.courseID, studentID: erased.id)
                } != nil)
        }
    }

    // MARK: An account erased while it joins from a scan

    @Test func an_account_erased_while_it_joins_from_a_scan_is_on_no_roster_on_two_processes() async throws {
        try await RaceGround.postgres.run { servers, database in
            let room = try await Classroom.open(servers[0])
            let newcomer = try await servers[0].register("Nico Newcomer")
            let ticket = try await room.scan(servers[0], as: newcomer)
            let held = try await HeldLock.hold(on: database) { sql in
                try await sql.raw("SELECT id FROM users WHERE id = \(bind: newcomer.id) FOR UPDATE").run()
            }
            let join = Task {
                try await servers[0].call(
                    .post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket, "join": true])
            }
            try await waitUntil("the check-in waits") { try await database.lockWaiters() == 1 }
            let erase = Task { try await servers[1].call(.delete, "/api/v1/me", as: newcomer) }
            try await waitUntil("the erasure waits") { try await database.lockWaiters() == 2 }
            try await held.letGo()
            let (joined, erased) = (try await join.value, try await erase.value)
            #expect(erased.status == .noContent, "\(erased.text)")
            #expect(
                joined.status == .created || joined.errorCode == "account_deleted"
                    || joined.status == .unauthorized, "\(joined.text)")
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM enrollments WHERE student_id = \(newcomer.id)")
                    == 0, "the erased account was left on the roster")
        }
    }

    @Test(arguments: RaceGround.allCases)
    func accounts_erased_while_they_join_from_a_scan_are_on_no_roster(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let room = try await Classroom.open(servers[0])
            for number in 0..<6 {
                let newcomer = try await servers[0].register("Walk In \(number)")
                let ticket = try await room.scan(servers[0], as: newcomer)
                let body = try RacesTests.json(["ticket": ticket, "join": true])
                let replies = try await RacesTests.atOnce(2, over: servers) { api, index in
                    index == 0
                        ? try await api.call(
                            .post, "/api/v1/check-ins", as: newcomer, raw: body, contentType: "application/json")
                        : try await api.call(.delete, "/api/v1/me", as: newcomer)
                }
                #expect(replies[1].status == .noContent, "\(replies[1].text)")
                #expect(
                    try await database.count(
                        "SELECT COUNT(*) AS n FROM enrollments WHERE student_id = \(newcomer.id)") == 0,
                    "round \(number): the erased account is on the roster; the check-in said \(replies[0].status)")
            }
        }
    }

    // MARK: A roster import while an invited person registers

    @Test func an_import_while_its_invitee_confirms_leaves_no_stale_invitation_on_two_processes() async throws {
        try await RaceGround.postgres.run { servers, database in
            let (teacher, courseID, _) = try await servers[0].teacherWithCourse("Tia Teacher")
            let email = "ivy.invited@school.test"
            // Held as another import inviting the same address would hold it: this import waits to invite it.
            let held = try await HeldLock.hold(on: database, rollingBack: true) { sql in
                try await sql.insert(into: "course_invitations")
                    .columns("course_id", "email", "name", "invited_by", "invited_at")
                    .values(SQLBind(courseID), SQLBind(email), SQLBind("Held"), SQLBind(teacher.id), SQLBind(Date()))
                    .run()
            }
            let imported = Task {
                try await servers[0].call(
                    .post, "/api/v1/courses/\(courseID)/roster-import", as: teacher,
                    raw: Array("email,name\n\(email),Ivy Invited\n".utf8), contentType: "text/csv")
            }
            try await waitUntil("the import waits") { try await database.lockWaiters() == 1 }
            // Meanwhile Ivy registers and confirms her address, on the other process.
            let ivy = try await servers[1].register("Ivy Invited", email: email)
            let done = NIOLockedValueBox(false)
            let confirmed = Task {
                try await RosterStore(database: database).acceptInvitations(studentID: ivy.id, email: email)
                done.withLockedValue { $0 = true }
            }
            try await waitUntil("the confirmation is done or waits") {
                if done.withLockedValue({ $0 }) { return true }
                return try await database.lockWaiters() == 2
            }
            try await held.letGo()
            let answer = try await imported.value
            try await confirmed.value
            #expect(answer.status == .ok, "\(answer.text)")
            try await Self.expectNoStaleInvitation(email: email, studentID: ivy.id, courseID: courseID, database)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func imports_while_their_invitees_register_leave_no_stale_invitation(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let (teacher, courseID, _) = try await servers[0].teacherWithCourse("Tia Teacher")
            for number in 0..<5 {
                let email = "invitee.\(number)@school.test"
                let replies = try await RacesTests.atOnce(2, over: servers) { api, index in
                    if index == 0 {
                        return try await api.call(
                            .post, "/api/v1/courses/\(courseID)/roster-import", as: teacher,
                            raw: Array("email,name\n\(email),Invitee \(number)\n".utf8), contentType: "text/csv")
                    }
                    let account = try await api.register("Invitee \(number)", email: email)
                    try await RosterStore(database: database).acceptInvitations(studentID: account.id, email: email)
                    return Reply(status: .created, headers: [:], text: "{\"id\": \(account.id)}")
                }
                #expect(replies[0].status == .ok, "\(replies[0].text)")
                let studentID = try #require(replies[1].int("id"))
                try await Self.expectNoStaleInvitation(
                    email: email, studentID: Int64(studentID), courseID: courseID, database)
            }
        }
    }

    /// The invitee has an account and is on the roster; no invitation waits for the address.
    static func expectNoStaleInvitation(
        email: String, studentID: Int64, courseID: Int64, _ database: Database
    ) async throws {
        #expect(
            try await database.count("SELECT COUNT(*) AS n FROM course_invitations WHERE email = '\(email)'") == 0,
            "an invitation was left for \(email), who has an account")
        #expect(try await RosterStore(database: database).isEnrolled(courseID: courseID, studentID: studentID))
    }
}
