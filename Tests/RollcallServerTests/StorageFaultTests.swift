import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RollcallParts
import RollcallStorage
import RollcallWords
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The SQLite file and its disk failing under a running server: writes are refused with a clear answer instead of
/// being lost, and `/healthz` says so.
@Suite("Storage faults", .timeLimit(.minutes(2)))
struct StorageFaultTests {
    @Test func a_damaged_stored_value_is_refused_not_read_as_empty() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let set = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["sessionDefaults": ["period": 20]])
            #expect(set.status == .ok, "\(set.text)")
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                try await database.write { sql in
                    try await sql.update("courses").set("session_defaults", to: SQLBind("{\"period\": ")).run()
                }
            }
            // Read as Rollcall's defaults, a new session would open with another period than the teacher chose.
            let session = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["title": "After the damage"])
            #expect(session.status == .internalServerError, "\(session.text)")
            #expect(session.errorCode == "internal_error")
            let sessions = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            #expect(!sessions.text.contains("After the damage"), "nothing was made")
        }
    }

    @Test func a_data_directory_deleted_under_the_server_refuses_writes_and_fails_the_health_check() async throws {
        try await withServer { api in
            let (teacher, _, _) = try await api.teacherWithCourse()
            #expect(try await api.call(.get, "/healthz").status == .ok)
            let directory = URL(fileURLWithPath: api.databasePath).deletingLastPathComponent().path
            try FileManager.default.removeItem(atPath: directory)

            let course = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Lost"])
            #expect(course.status == .serviceUnavailable, "\(course.text)")
            #expect(course.errorCode == "database_unavailable")
            let health = try await api.call(.get, "/healthz")
            #expect(health.status == .serviceUnavailable)
            #expect(health.errorCode == "database_unavailable")

            // A new file at the same path is not the one the server opened: still refused.
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: api.databasePath, contents: Data()))
            #expect(try await api.call(.get, "/healthz").status == .serviceUnavailable)
            let again = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Lost"])
            #expect(again.status == .serviceUnavailable, "\(again.text)")
            #expect(try FileManager.default.attributesOfItem(atPath: api.databasePath)[.size] as? Int == 0)
        }
    }

    @Test func a_full_disk_answers_storage_full_keeps_what_was_stored_and_recovers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-full-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = Configuration(dataDirectory: directory, logLevel: .error)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let database = try Database.sqlite(path: configuration.sqlitePath, logger: logger)
        do {
            try await Migrations.apply(to: database)
            let router = try await buildRouter(
                stores: Stores(database: database), configuration: configuration, passwordCost: 4)
            try await Application(router: router).test(.router) { client in
                let api = API(client: client, databasePath: configuration.sqlitePath)
                let (teacher, _, _) = try await api.teacherWithCourse()
                // The writer may grow the file by no more pages than it has now: the disk is full.
                try await database.write { sql in
                    let pages = try await sql.raw("PRAGMA page_count").first()?.decode(
                        column: "page_count", as: Int.self)
                    try await sql.raw("PRAGMA max_page_count = \(unsafeRaw: String(pages ?? 1))").run()
                }
                var created = 1
                var refusal: Reply?
                for index in 0..<200 {
                    let body: [String: Any] = [
                        "name": "Course \(index)", "description": String(repeating: "x", count: 2000),
                    ]
                    let reply = try await api.call(.post, "/api/v1/courses", as: teacher, json: body)
                    if reply.status == .created {
                        created += 1
                        continue
                    }
                    refusal = reply
                    break
                }
                let full = try #require(refusal)
                #expect(full.status == .serviceUnavailable, "\(full.text)")
                #expect(full.errorCode == "storage_full")
                let health = try await api.call(.get, "/healthz")
                #expect(health.status == .serviceUnavailable)
                #expect(health.errorCode == "storage_full")
                // The refused course left nothing behind.
                let listed = try await api.call(.get, "/api/v1/courses", as: teacher)
                #expect(listed.list("courses").count == created, "\(listed.text)")

                try await database.write { sql in try await sql.raw("PRAGMA max_page_count = 1073741823").run() }
                let after = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Room again"])
                #expect(after.status == .created, "\(after.text)")
                #expect(try await api.call(.get, "/healthz").status == .ok)
            }
        } catch {
            try? await database.shutdown()
            throw error
        }
        try await database.shutdown()
    }

    @Test(arguments: ["proc", "file", "database-is-a-directory"])
    func a_data_directory_that_cannot_be_written_stops_the_server_naming_the_setting(_ situation: String)
        async throws
    {
        // Tests run as root, whom permissions do not stop: these are places even root cannot write.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-ro-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let dataDirectory: String
        switch situation {
        case "proc": dataDirectory = "/proc"  // no file can be created there
        case "file":
            dataDirectory = scratch + "/data"
            #expect(FileManager.default.createFile(atPath: dataDirectory, contents: Data("not a directory".utf8)))
        default:
            dataDirectory = scratch
            try FileManager.default.createDirectory(
                atPath: scratch + "/rollcall.sqlite", withIntermediateDirectories: true)
        }
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await buildApplication(Configuration(dataDirectory: dataDirectory, logLevel: .error))
        }
        #expect(error?.variable == "ROLLCALL_DATA_DIR")
        #expect(error?.description.contains(dataDirectory) == true, "\(String(describing: error))")
    }
}
