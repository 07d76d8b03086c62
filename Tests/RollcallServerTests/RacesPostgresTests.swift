import Foundation
import HTTPTypes
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Races that only two processes on one PostgreSQL show: the same request many times at once, spread over both, has
/// one winner.
@Suite("Races on PostgreSQL", .timeLimit(.minutes(3)))
struct RacesPostgresTests {
    /// Sends `count` requests at once, alternating between the two servers; answers each reply.
    static func atOnce(
        _ count: Int, over servers: [API], _ send: @escaping @Sendable (API, Int) async throws -> Reply
    ) async throws -> [Reply] {
        try await withThrowingTaskGroup(of: Reply.self) { group in
            for index in 0..<count {
                let api = servers[index % servers.count]
                group.addTask { try await send(api, index) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func one_reset_link_sent_twenty_times_at_once_sets_one_password() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            // Setup: a reset link, and a second process on the same database.
            let ada = try await first.register("Ada Racer")
            let token = try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing {
                try await PasswordResets(database: $0).issue(userID: ada.id, requestedBy: nil)
            }
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                // The call under test: the link used twenty times at once over both processes.
                let replies = try await Self.atOnce(20, over: [first, second]) { api, index in
                    try await api.call(
                        .post, "/api/v1/auth/password-reset/complete",
                        json: ["token": token, "newPassword": "password number \(index)"])
                }

                // Validation: one was told its password is set, and that password is the one that works.
                let winners = replies.enumerated().filter { $0.element.status == .noContent }
                #expect(winners.count == 1, "\(replies.map(\.status.code))")
                #expect(replies.allSatisfy { $0.status == .noContent || $0.errorCode == "invalid_reset_token" })
            }
        }
    }

    @Test func ten_starts_of_one_attempt_at_once_make_one_attempt() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            let quiz = try await QuizRoom.start(first)
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                let replies = try await Self.atOnce(10, over: [first, second]) { api, _ in
                    try await quiz.attempt(api)
                }
                #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.status.code))")
                #expect(replies.allSatisfy { $0.status == .created || $0.status == .ok }, "\(replies.map(\.text))")
                #expect(Set(replies.compactMap { $0.int("attempt.id") }).count == 1, "one attempt for everyone")
            }
        }
    }

    @Test func one_texted_code_sent_ten_times_at_once_signs_in_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            // Setup: a confirmed number and a code texted to it.
            let pia = try await first.register("Pia Racer")
            let database = try Database.postgres(url: postgres.url, logger: .init(label: "test"))
            let code = try await database.closing { database in
                try await UserStore(database: database).confirmPhone(id: pia.id, phone: "+447700900150")
                let codes = PhoneCodes(database: database, keys: ServerKeys(database: database))
                return try await codes.issue(.signIn, phone: "+447700900150", userID: pia.id)
            }
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                // The call under test: the code used ten times at once over both processes.
                let replies = try await Self.atOnce(10, over: [first, second]) { api, _ in
                    try await api.call(
                        .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900150", "code": code])
                }

                // Validation: one token issued; every other answer says the code is used.
                #expect(replies.filter { $0.status == .created }.count == 1, "\(replies.map(\.status.code))")
                #expect(replies.allSatisfy { $0.status == .created || $0.errorCode == "invalid_code" })
            }
        }
    }
}
