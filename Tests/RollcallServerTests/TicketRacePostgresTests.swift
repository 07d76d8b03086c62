import Foundation
import HTTPTypes
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Two processes on one PostgreSQL database binding the same signed-out scan ticket at the same moment.
@Suite("Ticket races on PostgreSQL", .timeLimit(.minutes(3)))
struct TicketRacePostgresTests {
    @Test func two_servers_binding_one_ticket_at_once_check_in_one_student_and_refuse_the_other() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let races = 30
        try await withServer(databaseURL: postgres.url) { first in
            let room = try await Classroom.open(first)
            var pairs: [(Account, Account)] = []
            for race in 0..<races {
                pairs.append(
                    (try await room.enrol(first, "Racer A\(race)"), try await room.enrol(first, "Racer B\(race)")))
            }
            let racers = pairs
            try await withServer(databaseURL: postgres.url) { second in
                var refused = 0
                for (one, other) in racers {
                    let ticket = try await room.scan(first)  // scanned signed out, then shared
                    async let left = first.call(.post, "/api/v1/check-ins", as: one, json: ["ticket": ticket])
                    async let right = second.call(.post, "/api/v1/check-ins", as: other, json: ["ticket": ticket])
                    let answers = try await [left, right]
                    for answer in answers {
                        #expect(answer.status == .created || answer.status == .badRequest, "\(answer.text)")
                        if answer.status == .badRequest {
                            #expect(answer.errorCode == "invalid_code")
                            #expect(answer.errorMessage?.hasPrefix("This check-in link was opened by another") == true)
                            refused += 1
                        }
                    }
                    #expect(answers.filter { $0.status == .created }.count == 1, "\(answers.map(\.text))")
                }
                #expect(refused == races)
                // Exactly one student per ticket holds a record: the refused ones wrote nothing.
                let database = try Database.postgres(url: postgres.url, logger: .init(label: "test"))
                do {
                    let rows = try await database.read { sql in
                        try await sql.raw(
                            "SELECT count(*) AS n FROM attendance WHERE session_id = \(bind: room.sessionID)"
                        ).first(decoding: Count.self)
                    }
                    let evidence = try await database.read { sql in
                        try await sql.raw(
                            "SELECT count(*) AS n FROM check_in_evidence WHERE session_id = \(bind: room.sessionID)"
                        ).first(decoding: Count.self)
                    }
                    #expect(rows?.n == Int64(races))
                    #expect(evidence?.n == Int64(races))
                } catch {
                    try? await database.shutdown()
                    throw error
                }
                try await database.shutdown()
            }
        }
    }
}

private struct Count: Decodable {
    var n: Int64
}
