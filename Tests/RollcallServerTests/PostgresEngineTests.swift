import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RollcallWords
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallStorage

/// The PostgreSQL engine under SQLKit: statements prepared once per connection and bound with the types they were
/// prepared for, a deadline on every statement, and libpq's list of hosts.
@Suite("PostgreSQL engine", .timeLimit(.minutes(3)))
struct PostgresEngineTests {
    @Test func a_statement_sent_again_is_executed_by_name_and_nulls_and_values_bind_alike() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await Database.postgres(url: postgres.url, logger: Logger(label: "test")).closing { database in
            try await database.write { sql in
                try await sql.raw("CREATE TABLE seats (id BIGSERIAL PRIMARY KEY, row_number INTEGER, note TEXT)").run()
            }
            // One connection, so that its prepared statements are the ones `pg_prepared_statements` lists.
            let prepared = try await database.write { sql in
                for number in [nil, 3, nil, 4, 5] as [Int?] {
                    // An INTEGER column bound with a 64-bit value, after a null: each is prepared for its own types.
                    try await sql.insert(into: "seats").columns("row_number", "note")
                        .values(SQLBind(number), SQLBind("row \(number ?? 0)")).run()
                }
                for _ in 0..<3 {
                    _ = try await sql.select().column("note").from("seats").where("row_number", .equal, 4).all()
                }
                return try await sql.raw("SELECT name, statement FROM pg_prepared_statements").all()
            }
            let statements = try prepared.map { try $0.decode(column: "statement", as: String.self) }
            #expect(statements.contains { $0.hasPrefix("SELECT") && $0.contains("\"seats\"") }, "\(statements)")
            #expect(statements.filter { $0.hasPrefix("INSERT") }.count == 2, "\(statements)")
            #expect(try prepared.allSatisfy { try $0.decode(column: "name", as: String.self).hasPrefix("rollcall_") })
            let stored = try await database.read { sql in
                try await sql.select().column("row_number").from("seats").orderBy("id").all()
                    .map { try $0.decode(column: "row_number", as: Int?.self) }
            }
            #expect(stored == [nil, 3, nil, 4, 5])
        }
    }

    @Test func a_statement_past_its_deadline_is_refused_as_unavailable_and_its_connection_is_dropped() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await Database.postgres(url: postgres.url, logger: Logger(label: "test")).closing { database in
            let started = ContinuousClock.now
            await #expect(throws: DatabaseUnavailable.self) {
                try await Database.allowing(statementsOf: .seconds(1)) {
                    try await database.read { sql in try await sql.raw("SELECT pg_sleep(30)").run() }
                }
            }
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(20), "the statement held its caller for \(waited)")
            // The pool lends a working connection afterwards.
            let one = try await database.read { sql in
                try await sql.raw("SELECT 1 AS one").first()?.decode(column: "one", as: Int.self)
            }
            #expect(one == 1)
        }
    }

    /// PostgresNIO never answers a statement that reaches a connection just after it closed, nor lets it be
    /// cancelled; a server's shutdown closes every connection while requests are on their way to them.
    @Test func a_statement_that_meets_a_closed_connection_lets_its_caller_go() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let logger = Logger(label: "test")
        let server = try PostgresHosts(url: postgres.url).servers[0]
        let connection = try await PostgresConnection.connect(configuration: server, id: 1, logger: logger)
        try await connection.close()
        let watch = StatementWatch()
        defer { watch.stop() }
        let outcome = NIOLockedValueBox<String?>(nil)
        Task {
            do {
                // A deadline far away: only the close may let the caller go.
                try await watch.run(on: connection, deadline: .seconds(3_600)) {
                    _ = try await connection.query("SELECT 1", logger: logger)
                }
                outcome.withLockedValue { $0 = "answered" }
            } catch {
                outcome.withLockedValue { $0 = "\(type(of: error))" }
            }
        }
        try await waitUntil("the caller is let go", timeout: .seconds(60)) { outcome.withLockedValue { $0 } != nil }
        #expect(outcome.withLockedValue { $0 } == "DatabaseUnavailable")
    }

    /// A request's wait for a connection ends at its deadline, and at once when the request is done with it (the
    /// connection came, and the wait is cancelled), including when it is cancelled before it began.
    @Test func a_wait_for_a_connection_ends_at_its_deadline_or_when_cancelled() async throws {
        let watch = StatementWatch()
        defer { watch.stop() }
        let began = ContinuousClock.now
        try await watch.waitOut(.milliseconds(300))
        #expect(began.duration(to: .now) >= .milliseconds(300))

        // A deadline far away: only the cancellation may end these.
        let ended = NIOLockedValueBox<String?>(nil)
        let waiting = Task {
            do {
                try await watch.waitOut(.seconds(3_600))
                ended.withLockedValue { $0 = "returned" }
            } catch {
                ended.withLockedValue { $0 = "\(type(of: error))" }
            }
        }
        try await waitUntil("the wait has begun", timeout: .seconds(60)) { watch.waits == 1 }
        waiting.cancel()
        try await waitUntil("the cancelled wait has ended", timeout: .seconds(60)) {
            ended.withLockedValue { $0 } != nil
        }
        #expect(ended.withLockedValue { $0 } == "CancellationError")
        #expect(watch.waits == 0)
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await watch.waitOut(.seconds(3_600))
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        // Stopping ends a wait whether it began before or after.
        let closing = Task { try await watch.waitOut(.seconds(3_600)) }
        watch.stop()
        try await closing.value
        try await watch.waitOut(.seconds(3_600))
    }

    @Test func a_connection_closed_under_a_request_is_not_lent_to_the_next() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await Database.postgres(url: postgres.url, logger: Logger(label: "test")).closing { database in
            // The server ends the connection of each first request; the request after it must not meet that
            // connection again, however soon it comes.
            for _ in 0..<20 {
                await #expect(throws: DatabaseUnavailable.self) {
                    try await database.read { sql in
                        try await sql.raw("SELECT pg_terminate_backend(pg_backend_pid())").run()
                    }
                }
                let one = try await database.read { sql in
                    try await sql.raw("SELECT 1 AS one").first()?.decode(column: "one", as: Int.self)
                }
                #expect(one == 1)
            }
        }
    }

    @Test func a_listener_whose_server_falls_silent_connects_again_and_hears_the_other_processes() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let proxy = try await TCPProxy.start(to: postgres.port)
        let heard = NIOLockedValueBox<Set<Int64>>([])
        let url = "postgres://rollcall@127.0.0.1:\(proxy.port)/postgres?sslmode=disable"
        try await Database.postgres(url: url, logger: Logger(label: "test")).closing { listening in
            listening.notices.observe { notice in
                if case .user(let id)? = notice { heard.withLockedValue { _ = $0.insert(id) } }
            }
            let listener = try #require(listening.liveServices.first)
            let running = Task { try await listener.run() }
            defer { running.cancel() }
            try await Database.postgres(url: postgres.url, logger: Logger(label: "test")).closing { other in
                // Sent as the database's triggers send it: this database has no tables of Rollcall's.
                func notify(_ notice: ChangeNotice) async throws {
                    try await other.write { sql in
                        try await sql.raw(
                            "SELECT pg_notify(\(bind: LiveNotifications.changes), \(bind: notice.payload))"
                        ).run()
                    }
                }
                try await waitUntil("another process's notice is heard", timeout: .seconds(60)) {
                    try await notify(.user(1))
                    return heard.withLockedValue { $0.contains(1) }
                }
                // The listening connection falls silent, as behind a virtual IP whose machine is lost and back.
                proxy.silenceOpen()
                try await waitUntil("a notice is heard after the silence", timeout: .seconds(60)) {
                    try await notify(.user(2))
                    return heard.withLockedValue { $0.contains(2) }
                }
            }
        }
        await proxy.stop()
    }

    @Test func a_transaction_whose_connection_the_server_ends_is_refused_at_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await Database.postgres(url: postgres.url, logger: Logger(label: "test")).closing { database in
            // The server ends the connection inside the transaction (57P01, as a crashing primary's backends do). The
            // ROLLBACK after it must not be written to the closed connection, where nothing would ever answer it.
            for _ in 0..<10 {
                let outcome = NIOLockedValueBox<String?>(nil)
                let attempt = Task {
                    do {
                        try await database.transaction { sql in
                            try await sql.raw("SELECT pg_terminate_backend(pg_backend_pid())").run()
                        }
                        outcome.withLockedValue { $0 = "committed" }
                    } catch {
                        outcome.withLockedValue { $0 = "\(type(of: error))" }
                    }
                }
                try await waitUntil("the transaction is answered", timeout: .seconds(30)) {
                    outcome.withLockedValue { $0 } != nil
                }
                #expect(outcome.withLockedValue { $0 } == "DatabaseUnavailable")
                guard outcome.withLockedValue({ $0 }) != nil else {
                    // Left waiting; cancelling it cannot end a wait that ignores cancellation, but says it is over.
                    attempt.cancel()
                    return
                }
            }
        }
    }

    @Test func a_list_of_hosts_uses_the_first_that_answers_and_takes_writes() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        // Nothing listens on the first port: Rollcall goes on to the second, as libpq does.
        let unused = try RawConnection.unusedPort()
        let url =
            "postgres://rollcall@127.0.0.1:\(unused),127.0.0.1:\(postgres.port)/postgres?sslmode=disable"
            + "&target_session_attrs=read-write"
        try await Database.postgres(url: url, logger: Logger(label: "test")).closing { database in
            try await database.write { sql in try await sql.raw("CREATE TABLE marks (id INTEGER)").run() }
            let port = try await database.read { sql in
                try await sql.raw("SELECT current_setting('port') AS port").first()?.decode(
                    column: "port", as: String.self)
            }
            #expect(port == String(postgres.port))
        }
    }

    @Test func a_database_address_rollcall_cannot_use_is_refused_with_a_sentence() async throws {
        for url in [
            "mysql://rollcall@db/rollcall",
            "postgres://rollcall@db1,,db2/rollcall",
            "postgres://rollcall@db1,db2/rollcall?target_session_attrs=read-only",
            "postgres://rollcall:hunter2@db:notaport/rollcall",
        ] {
            let refusal = #expect(throws: ConfigurationError.self, "\(url)") {
                try Database.postgres(url: url, logger: Logger(label: "test"))
            }
            // The sentence names the setting and never repeats a password.
            #expect(refusal?.description.hasPrefix("ROLLCALL_DATABASE_URL ") == true)
            #expect(refusal?.description.contains("hunter2") == false)
        }
        for url in [
            "postgres://rollcall:secret@db.school.test:5433/rollcall?sslmode=disable",
            "postgresql://rollcall@db1:5432,db2:5432/rollcall?target_session_attrs=read-write&sslmode=disable",
            "postgres://rollcall@db1,db2/rollcall?target_session_attrs=any",
        ] {
            let database = try Database.postgres(url: url, logger: Logger(label: "test"))
            try await database.shutdown()
        }
    }
}
