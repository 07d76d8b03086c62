import Foundation
import NIOConcurrencyHelpers
import RollcallParts
import RollcallStorage
import RollcallWeb
import SQLiteNIO
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The school's operations on the embedded database: backups while the server runs, the check, restores, and the
/// migrations a start would apply.
@Suite("Operations", .timeLimit(.minutes(5)))
struct OperationsTests {
    @Test func a_backup_taken_during_check_ins_keeps_each_acknowledged_one_and_restores_to_a_server_that_answers()
        async throws
    {
        let scratch = Scratch()
        defer { scratch.remove() }
        let backup = scratch.path("backups/monday.sqlite")
        let acknowledged = NIOLockedValueBox<Set<Int64>>([])
        let before = NIOLockedValueBox<Set<Int64>>([])
        let room = NIOLockedValueBox<Classroom?>(nil)
        let backingUp = NIOLockedValueBox(false)
        try await withServer(dataDirectory: scratch.path("data")) { api in
            let classroom = try await Classroom.open(api)
            room.withLockedValue { $0 = classroom }
            var students = [classroom.student]
            for number in 1..<30 { students.append(try await classroom.enrol(api, "Burst Student \(number)")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Three phones at a time, as a room does.
                for lane in 0..<3 {
                    let mine = students.enumerated().filter { $0.offset % 3 == lane }.map(\.element)
                    group.addTask {
                        for student in mine {
                            // After the first few, the room waits for the backup to begin: on a fast machine the
                            // whole burst could otherwise end before it, and the backup would not be taken during it.
                            if acknowledged.withLockedValue({ $0.count >= 6 }) {
                                try await eventually("the backup to begin") { backingUp.withLockedValue { $0 } }
                            }
                            let reply = try await classroom.checkIn(api, student)
                            if reply.status == .created { acknowledged.withLockedValue { _ = $0.insert(student.id) } }
                        }
                    }
                }
                try await eventually("the first check-ins") { acknowledged.withLockedValue { $0.count >= 6 } }
                before.withLockedValue { $0 = acknowledged.withLockedValue { $0 } }
                backingUp.withLockedValue { $0 = true }
                _ = try await Operations.backup(scratch.configuration(), to: backup, force: false, in: .english)
                try await group.waitForAll()
            }
            // The burst went on after the backup began: the backup was taken while check-ins came in.
            #expect(acknowledged.withLockedValue { $0.count } == 30)
            #expect(before.withLockedValue { $0.count } < 30)
        }
        let classroom = try #require(room.withLockedValue { $0 })
        let kept = try await sqliteRows(
            backup, "SELECT student_id FROM attendance WHERE session_id = \(classroom.sessionID)"
        ).compactMap { $0.column("student_id")?.integer.map(Int64.init) }
        let missing = before.withLockedValue { $0 }.subtracting(kept)
        #expect(missing.isEmpty, "check-ins acknowledged before the backup began are missing from it: \(missing)")

        let manifest = try #require(try BackupManifest.read(beside: backup))
        #expect(manifest.tables["attendance"] == kept.count)
        #expect(manifest.schemaVersion == Migrations.steps.last?.name)
        let checked = try await Operations.check(scratch.configuration(), file: backup, in: .english)
        #expect(checked.passed, "\(checked.problems)")

        _ = try await Operations.restore(scratch.configuration("restored"), from: backup, in: .english)
        try await withServer(dataDirectory: scratch.path("restored")) { api in
            let teacher = try await api.signIn(classroom.teacher.email)
            let session = try await api.call(.get, "/api/v1/sessions/\(classroom.sessionID)", as: teacher)
            #expect(session.status == .ok, "\(session.text)")
            let csv = try await api.csv("/api/v1/sessions/\(classroom.sessionID)/report.csv", as: teacher)
            #expect(csv.count > kept.count, "the roster's rows, present ones among them")
        }
    }

    @Test func a_backup_does_not_replace_an_earlier_one_unless_forced() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let backup = scratch.path("copy.sqlite")
        try await withServer(dataDirectory: scratch.path("data")) { api in
            _ = try await Classroom.open(api)
            _ = try await Operations.backup(scratch.configuration(), to: backup, force: false, in: .english)
            let first = try SQLiteBackup.digest(of: backup)
            _ = try await api.register("Later Student")

            await expectOperationRefused(containing: "--force") {
                _ = try await Operations.backup(scratch.configuration(), to: backup, force: false, in: .english)
            }
            #expect(try SQLiteBackup.digest(of: backup) == first, "the earlier copy is untouched")

            let forced = try await Operations.backup(scratch.configuration(), to: backup, force: true, in: .english)
            #expect(forced.lines.first?.contains(backup) == true, "\(forced.lines)")
            let manifest = try #require(try BackupManifest.read(beside: backup))
            #expect(manifest.tables["users"] == 3, "the teacher, the student and the later one")
            #expect(try SQLiteBackup.digest(of: backup).1 == manifest.sha256)
        }
    }

    @Test func a_backup_of_postgresql_points_to_pg_dump() async throws {
        let configuration = Configuration(databaseURL: "postgres://rollcall@127.0.0.1:1/none", logLevel: .error)
        await expectOperationRefused(containing: "pg_dump") {
            _ = try await Operations.backup(configuration, to: "/tmp/never.sqlite", force: false, in: .english)
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.sqlite"))
    }

    @Test func the_migrations_a_start_would_apply_are_listed_and_nothing_changes() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let all = Migrations.steps.map(\.name)
        #expect(try await Operations.migrationPlan(scratch.configuration()) == all)
        #expect(!FileManager.default.fileExists(atPath: scratch.configuration().sqlitePath), "nothing was created")

        try await Maintenance.migrate(scratch.configuration())
        #expect(try await Operations.migrationPlan(scratch.configuration()) == [])
        let last = try #require(all.last)
        _ = try await sqliteRows(
            scratch.configuration().sqlitePath, "DELETE FROM schema_migrations WHERE name = '\(last)'")
        #expect(try await Operations.migrationPlan(scratch.configuration()) == [last])
        #expect(try await Operations.migrationPlan(scratch.configuration()) == [last], "a dry run applies nothing")
    }
}
