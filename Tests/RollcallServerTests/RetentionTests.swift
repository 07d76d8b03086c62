import Foundation
import HTTPTypes
import Logging
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWords
import SQLKit
import ServerTestSupport
import ServiceLifecycle
import Testing

@testable import RollcallHealth
@testable import RollcallServer

/// Evidence ages out after the retention period, on SQLite and on PostgreSQL, with the clock moved; attendance,
/// audit entries and exposure-report audits stay.
@Suite("Retention", .timeLimit(.minutes(5)))
struct RetentionTests {
    static let day: TimeInterval = 86_400

    /// Writes evidence just inside and just outside the period before `now`, purges, and checks what is left.
    static func evidenceAgesOut(_ database: Database) async throws {
        try await Migrations.apply(to: database)
        let session = try await database.openSessionOfNewCourse()
        let users = UserStore(database: database)
        func student(_ name: String) async throws -> Int64 {
            try await users.create(
                NewUser(
                    name: name, email: "\(name)@school.test", passwordHash: "x", role: .student, studentNumber: nil,
                    approved: true)
            ).id
        }
        let kept = try await student("kept")
        let gone = try await student("gone")
        // The clock moved 100 days on: the period's edge is 70 days after today.
        let now = Date().addingTimeInterval(100 * day)
        let edge = Retention.cutoff(now: now, days: 30)
        let inside = edge.addingTimeInterval(60)
        let outside = edge.addingTimeInterval(-60)
        try await database.write { sql in
            for (student, at) in [(kept, inside), (gone, outside)] {
                try await sql.insert(into: "check_in_evidence")
                    .columns(
                        "session_id", "student_id", "latitude", "longitude", "accuracy", "device_id", "client_address",
                        "via", "created_at"
                    )
                    .values(
                        SQLBind(session.id), SQLBind(student), SQLBind(52.0), SQLBind(4.0), SQLBind(8.0),
                        SQLBind("phone-\(student)"), SQLBind("10.0.0.\(student)"), SQLBind("qr"), SQLBind(at)
                    ).run()
                try await sql.insert(into: "device_bindings")
                    .columns("session_id", "device_id", "student_id", "created_at")
                    .values(SQLBind(session.id), SQLBind("phone-\(student)"), SQLBind(student), SQLBind(at)).run()
                try await sql.insert(into: "passkey_verifications")
                    .columns(
                        "user_id", "credential_id", "session_id", "device_id", "backup_eligible", "backed_up", "reused",
                        "created_at"
                    )
                    .values(
                        SQLBind(student), SQLBind("cred-\(student)"), SQLBind(session.id), SQLBind("phone-\(student)"),
                        SQLBind(false), SQLBind(false), SQLBind(false), SQLBind(at)
                    ).run()
                try await sql.insert(into: "flags").columns("session_id", "student_id", "kind", "detail", "created_at")
                    .values(
                        SQLBind(session.id), SQLBind(student), SQLBind("device_already_used"),
                        SQLBind("phone-\(student)"), SQLBind(at)
                    ).run()
                try await sql.insert(into: "outbox").columns("channel", "recipient", "subject", "body", "created_at")
                    .values(
                        SQLBind("email"), SQLBind("\(student)@school.test"), SQLBind("Hi"), SQLBind("Hi"), SQLBind(at)
                    )
                    .run()
                // A remembered browser goes when its 30 days are up, not by the evidence period.
                try await sql.insert(into: "remembered_devices")
                    .columns("user_id", "token_hash", "phone", "name", "created_at", "expires_at")
                    .values(
                        SQLBind(student), SQLBind("hash-\(student)"), SQLBind("+447700900\(student)"),
                        SQLBind("Chrome on Android"), SQLBind(now.addingTimeInterval(-20 * day)),
                        SQLBind(now.addingTimeInterval(student == kept ? 60 : -60))
                    ).run()
                // Attendance and its audit are the record: they stay however old.
                try await sql.insert(into: "attendance")
                    .columns("session_id", "student_id", "status", "recorded_at", "source")
                    .values(SQLBind(session.id), SQLBind(student), SQLBind("present"), SQLBind(outside), SQLBind("qr"))
                    .run()
                try await sql.insert(into: "attendance_audit")
                    .columns(
                        "session_id", "student_id", "changed_by", "changed_at", "old_status", "new_status", "reason"
                    )
                    .values(
                        SQLBind(session.id), SQLBind(student), SQLBind(student), SQLBind(outside), SQLBind("absent"),
                        SQLBind("present"), SQLBind("old")
                    ).run()
                try await sql.insert(into: "exposure_reports")
                    .columns("requested_by", "person_id", "reason", "window_from", "window_until", "created_at")
                    .values(
                        SQLBind(student), SQLBind(student), SQLBind("old"), SQLBind(outside), SQLBind(outside),
                        SQLBind(outside)
                    ).run()
            }
        }
        try await EvidenceRetention.purge(database, days: 30, now: now)
        try await database.read { sql in
            for (table, column) in [
                ("check_in_evidence", "student_id"), ("device_bindings", "student_id"),
                ("passkey_verifications", "user_id"), ("flags", "student_id"), ("remembered_devices", "user_id"),
            ] {
                let left = try await sql.select().column(column).from(table).all(decodingColumn: column, as: Int64.self)
                #expect(left == [kept], "\(table): just inside kept, just outside deleted")
            }
            let outbox = try await sql.select().column("recipient").from("outbox")
                .all(decodingColumn: "recipient", as: String.self)
            #expect(outbox == ["\(kept)@school.test"])
            for table in ["attendance", "attendance_audit", "exposure_reports"] {
                let rows = try await sql.select().column(SQLLiteral.all).from(table).all()
                #expect(rows.count == 2, "\(table) stays")
            }
        }
    }

    @Test func evidence_ages_out_and_attendance_stays_on_sqlite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-retention-\(UUID()).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database.sqlite(path: path, logger: Logger(label: "test"))
        try await database.closing(Self.evidenceAgesOut)
    }

    @Test func evidence_ages_out_and_attendance_stays_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let database = try Database.postgres(url: postgres.url, logger: Logger(label: "test"))
        try await database.closing(Self.evidenceAgesOut)
    }

    @Test func the_service_purges_once_the_schema_is_ready_and_stops_with_the_app() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-retention-\(UUID()).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database.sqlite(path: path, logger: Logger(label: "test"))
        try await Migrations.apply(to: database)
        let session = try await database.openSessionOfNewCourse()
        let now = Date().addingTimeInterval(40 * Self.day)
        try await database.write { sql in
            try await sql.insert(into: "device_bindings")
                .columns("session_id", "device_id", "student_id", "created_at")
                .values(SQLBind(session.id), SQLBind("old-phone"), SQLBind(1), SQLBind(Date())).run()
        }
        let schema = SchemaReady()
        let service = EvidenceRetention(
            database: database, days: 30, logger: Logger(label: "test"), ready: schema, now: { now })
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            func left() async throws -> Int {
                try await database.read { sql in
                    try await sql.select().column("device_id").from("device_bindings").all().count
                }
            }
            #expect(try await left() == 1, "nothing is deleted before the schema is ready")
            schema.open()
            // A generous deadline: on a machine busy with other builds the first round may take a while.
            try await waitUntil("the purge at start deletes the 40-day-old binding", timeout: .seconds(120)) {
                try await left() == 0
            }
            #expect(try await left() == 0, "the purge at start deleted the 40-day-old binding")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await database.shutdown()
    }

    @Test func the_retention_period_is_read_and_checked_from_the_environment() throws {
        #expect(try Configuration.fromEnvironment([:]).evidenceDays == 30)
        #expect(try Configuration.fromEnvironment(["ROLLCALL_EVIDENCE_DAYS": "7"]).evidenceDays == 7)
        for bad in ["0", "-3", "thirty", "3651", "7.5"] {
            #expect {
                try Configuration.fromEnvironment(["ROLLCALL_EVIDENCE_DAYS": bad])
            } throws: { error in
                (error as? ConfigurationError)?.variable == "ROLLCALL_EVIDENCE_DAYS"
                    && "\(error)".contains("ROLLCALL_EVIDENCE_DAYS")
            }
        }
    }
}

/// A person's own data: the download, and deleting an account with the anonymous counts kept.
@Suite("Personal data", .timeLimit(.minutes(5)))
struct PersonalDataTests {
    @Test func a_student_downloads_their_data_and_deletes_their_account_keeping_the_counts() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let checkedIn = try await room.checkIn(api, room.student, device: "phone-of-cass")
            #expect(checkedIn.status == .created, "\(checkedIn.text)")
            try await api.confirmPhone(room.student, "+447700900888")
            let browser = try await api.rememberedDevice(room.student, "+447700900888")
            let data = try await api.call(.get, "/api/v1/me/data", as: room.student)
            #expect(data.status == .ok)
            #expect(data.headers[.contentDisposition]?.hasPrefix("attachment") == true)
            #expect(data.list("data.attendance").count == 1)
            #expect(data.list("data.devices").first?["deviceId"] as? String == "phone-of-cass")
            #expect(data.list("data.courses").first?["relation"] as? String == "student")
            #expect(data.int("data.retentionDays") == 30)
            #expect(data.list("data.rememberedBrowsers").first?["name"] as? String == "Chrome on Android")

            // The teacher of a course keeps their account: its records name them.
            try await api.expectRefused(
                .delete, "/api/v1/me", as: room.teacher, status: .conflict, code: "records_must_be_kept")
            let deleted = try await api.call(.delete, "/api/v1/me", as: room.student)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            let user = try await api.rows("SELECT * FROM users WHERE id = \(room.student.id)")
            #expect(user.first?["name"] == "Deleted person")
            #expect(user.first?["email"]??.contains("cass") == false)
            for table in ["device_bindings", "check_in_evidence", "access_tokens", "enrollments", "remembered_devices"]
            {
                let column = ["access_tokens", "remembered_devices"].contains(table) ? "user_id" : "student_id"
                #expect(
                    try await api.rows("SELECT * FROM \(table) WHERE \(column) = \(room.student.id)").isEmpty,
                    "\(table)")
            }
            let rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[room.student.id]?.0 == "present", "the attendance count stays")
            let sessions = try await api.call(.get, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher)
            #expect((sessions.list("sessions").first?["counts"] as? [String: Int])?["present"] == 1)
            #expect(try await api.call(.get, "/api/v1/me", as: room.student).status == .unauthorized)
            let signIn = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": room.student.email, "password": API.password])
            #expect(signIn.status == .unauthorized)
            let remembered = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: browser])
            #expect(remembered.status == .unauthorized, "a remembered browser signs nobody in")
        }
    }

    @Test func an_admin_deletes_an_account_but_not_their_own() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let (teacher, course, _) = try await api.teacherWithCourse()
            try await api.expectRefused(
                .delete, "/api/v1/admin/users/\(admin.id)", as: admin, status: .badRequest, code: "cannot_delete_self")
            try await api.expectRefused(
                .delete, "/api/v1/admin/users/999999", as: admin, status: .notFound, code: "user_not_found")
            try await api.expectRefused(
                .delete, "/api/v1/admin/users/\(teacher.id)", as: teacher, status: .forbidden, code: "forbidden")
            #expect(try await api.call(.delete, "/api/v1/admin/users/\(teacher.id)", as: admin).status == .noContent)
            try await api.expectRefused(
                .delete, "/api/v1/admin/users/\(teacher.id)", as: admin, status: .conflict, code: "account_deleted")
            let kept = try await api.call(.get, "/api/v1/courses/\(course)", as: admin)
            #expect(kept.status == .ok, "the course and its records stay")
        }
    }
}
