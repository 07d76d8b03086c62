import Foundation
import NIOConcurrencyHelpers
import RollcallWeb
import SQLiteNIO
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The check's findings, and the refusals of restore and copy-database, which change nothing.
@Suite("Operations: check and refusals", .timeLimit(.minutes(5)))
struct OperationsRefusalTests {
    /// A data directory with a course, a session, a check-in and a teacher's change, and a backup of it.
    private func school(_ scratch: Scratch) async throws -> (Classroom, String) {
        let backup = scratch.path("backup.sqlite")
        let room = try await withServerAnswering(dataDirectory: scratch.path("data")) { api in
            let room = try await Classroom.open(api)
            #expect(try await room.checkIn(api, room.student).status == .created)
            let other = try await room.enrol(api, "Late Larry")
            #expect(try await api.mark(room, session: room.sessionID, student: other.id, "late").status == .ok)
            #expect(try await api.mark(room, session: room.sessionID, student: other.id, "excused").status == .ok)
            return room
        }
        _ = try await Operations.backup(scratch.configuration(), to: backup, force: false, in: .english)
        return (room, backup)
    }

    @Test func check_passes_a_sound_database_and_lists_each_broken_invariant() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (room, _) = try await school(scratch)
        let sound = try await Operations.check(scratch.configuration(), in: .english)
        #expect(sound.passed, "\(sound.problems)")
        #expect(sound.summary.contains { $0.contains("Audit entries replayed to their records: 2.") }, "\(sound)")

        // Written around the server's rules, as a hand-edited file or a half-restored one would be.
        let path = scratch.configuration().sqlitePath
        _ = try await sqliteRows(
            path, "UPDATE attendance SET status = 'absent' WHERE student_id <> \(room.student.id)")
        _ = try await sqliteRows(
            path,
            """
            INSERT INTO attendance (session_id, student_id, status, recorded_at, source)
            VALUES (9999, \(room.student.id), 'present', 0, 'qr')
            """)
        let broken = try await Operations.check(scratch.configuration(), in: .english)
        #expect(!broken.passed)
        #expect(broken.problems.contains { $0.contains("ends at excused, but the record says absent") }, "\(broken)")
        #expect(broken.problems.contains { $0.contains("refers to a row of sessions that does not exist") })
        #expect(broken.problems.contains { $0.contains("in session 9999 names no session") }, "\(broken)")
    }

    @Test func restore_refuses_a_running_server_and_changes_nothing() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (room, backup) = try await school(scratch)
        try await withServer(dataDirectory: scratch.path("data")) { api in
            let teacher = try await api.signIn(room.teacher.email)
            let before = try await api.snapshot()
            await expectOperationRefused(containing: "stop every server of this data directory") {
                _ = try await Operations.restore(scratch.configuration(), from: backup, in: .english)
            }
            #expect(try await api.snapshot() == before)
            let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: teacher)
            #expect(session.status == .ok, "the server still answers: \(session.text)")
        }
    }

    @Test func restore_refuses_a_newer_schema_and_a_truncated_copy() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (_, backup) = try await school(scratch)
        let target = scratch.configuration().sqlitePath
        let original = try SQLiteBackup.digest(of: target)

        let newer = scratch.path("newer.sqlite")
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        _ = try await sqliteRows(newer, "INSERT INTO schema_migrations VALUES ('999_from_the_future', 0)")
        await expectOperationRefused(containing: "newer Rollcall") {
            _ = try await Operations.restore(scratch.configuration(), from: newer, in: .english)
        }

        let truncated = scratch.path("truncated.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        try FileManager.default.copyItem(atPath: backup + ".json", toPath: truncated + ".json")
        await expectOperationRefused(containing: "truncated or altered") {
            _ = try await Operations.restore(scratch.configuration(), from: truncated, in: .english)
        }
        // Without its description, SQLite's own reading finds the copy is not whole.
        try FileManager.default.removeItem(atPath: truncated + ".json")
        await expectOperationRefused(containing: "so it is not restored") {
            _ = try await Operations.restore(scratch.configuration(), from: truncated, in: .english)
        }
        #expect(try SQLiteBackup.digest(of: target) == original, "the data directory is untouched")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path("data"))
        #expect(left.allSatisfy { !$0.contains("restoring") && !$0.contains("before-restore") }, "\(left)")
    }

    @Test func restore_into_a_stopped_server_keeps_what_it_replaces() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (room, backup) = try await school(scratch)
        try await withServer(dataDirectory: scratch.path("data")) { api in
            _ = try await api.register("After The Backup")
        }
        let report = try await Operations.restore(scratch.configuration(), from: backup, in: .english)
        #expect(report.lines.contains { $0.contains("is kept at") }, "\(report.lines)")
        try await withServer(dataDirectory: scratch.path("data")) { api in
            let teacher = try await api.signIn(room.teacher.email)
            #expect(try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: teacher).status == .ok)
            let after = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "after.the.backup@school.test", "password": API.password])
            #expect(after.status == .unauthorized, "the account made after the backup is gone: \(after.text)")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: scratch.path("data"))
        #expect(kept.contains { $0.hasPrefix("rollcall.sqlite.before-restore-") }, "\(kept)")
    }

    @Test func copy_database_refuses_a_running_source_and_a_target_with_data() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        _ = try await school(scratch)
        let target = scratch.path("other/rollcall.sqlite")
        try await withServer(dataDirectory: scratch.path("other")) { api in
            _ = try await api.register("Someone Else")
            await expectOperationRefused(containing: "stop every server") {
                _ = try await Operations.copyDatabase(
                    scratch.configuration("other"), to: scratch.path("x.sqlite"), in: .english)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.sqlite")), "no target left behind")
        let before = try await sqliteRows(target, "SELECT COUNT(*) AS n FROM users").first?.column("n")?.integer
        await expectOperationRefused(containing: "copy only into an empty database") {
            _ = try await Operations.copyDatabase(scratch.configuration(), to: target, in: .english)
        }
        let after = try await sqliteRows(target, "SELECT COUNT(*) AS n FROM users").first?.column("n")?.integer
        #expect(before == 1 && after == 1)

        let copy = scratch.path("copy/rollcall.sqlite")
        let report = try await Operations.copyDatabase(scratch.configuration(), to: copy, in: .english)
        #expect(report.lines.last?.contains("equal on both sides") == true, "\(report.lines)")
        #expect(try await Operations.check(scratch.configuration("copy"), in: .english).passed)
    }
}

/// Runs a server on `dataDirectory` for `body` and answers what it returned.
func withServerAnswering<T: Sendable>(
    dataDirectory: String, _ body: @escaping @Sendable (API) async throws -> T
) async throws -> T {
    let result = NIOLockedValueBox<T?>(nil)
    try await withServer(dataDirectory: dataDirectory) { api in
        let answer = try await body(api)
        result.withLockedValue { $0 = answer }
    }
    return try #require(result.withLockedValue { $0 })
}
