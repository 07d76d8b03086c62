import Foundation
import Logging
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

/// The language each person first acts in, kept in groups while a room of newcomers checks in at once.
@Suite("First languages", .timeLimit(.minutes(5)))
struct FirstLanguagesTests {
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_crowd_of_newcomers_each_keeps_their_own_language_and_a_kept_one_stays(engine: Database.Engine)
        async throws
    {
        try await withMigratedDatabase(engine) { database in
            let users = UserStore(database: database)
            var people: [Int64] = []
            for number in 0..<300 {
                let user = try await users.create(
                    NewUser(
                        name: "Newcomer \(number)", email: "n\(number)@school.test", passwordHash: "-",
                        role: .student, approved: true))
                people.append(user.id)
            }
            let languages = ["fr", "de", "es"]
            let veteran = people[0]
            #expect(try await database.firstLanguages.keep("de", of: veteran))

            // Everyone at once, the veteran again among them in another language, and a newcomer twice.
            let answers = try await withThrowingTaskGroup(of: (Int64, Bool).self) { group in
                for (index, id) in (people + [people[7]]).enumerated() {
                    group.addTask {
                        (id, try await database.firstLanguages.keep(languages[index % 3], of: id))
                    }
                }
                return try await group.reduce(into: [(Int64, Bool)]()) { $0.append($1) }
            }
            #expect(answers.count == 301)
            #expect(answers.filter { $0.0 == veteran }.allSatisfy { !$0.1 }, "the veteran's first language stays")
            // The newcomer asked twice is told once that their language was kept (the other asked in another).
            #expect(answers.filter { $0.0 != veteran && $0.1 }.count == 299, "each newcomer's language kept once")

            let kept = try await database.read { sql in
                try await sql.select().column("id").column("first_language").from("users").all()
                    .map {
                        (
                            try $0.decode(column: "id", as: Int64.self),
                            try $0.decode(column: "first_language", as: String.self)
                        )
                    }
            }
            let byPerson = Dictionary(uniqueKeysWithValues: kept)
            #expect(byPerson[veteran] == "de")
            for (index, id) in people.enumerated().dropFirst() where index != 7 {
                #expect(byPerson[id] == languages[index % 3], "newcomer \(index)")
            }
            #expect(["de", "fr"].contains(byPerson[people[7]]))
        }
    }

    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_persons_first_answered_request_keeps_its_language(engine: Database.Engine) async throws {
        let postgres = engine == .postgres ? try PostgresServer.start() : nil
        defer { postgres?.stop() }
        try await withServer(databaseURL: postgres?.url) { api in
            // An account a roster import made: it has acted in no language yet.
            let ana = try await api.database().closing { database in
                let user = try await UserStore(database: database).create(
                    NewUser(
                        name: "Ana Newcomer", email: "ana@school.test", passwordHash: "-", role: .student,
                        approved: true))
                let token = try await AccessTokenStore(database: database).issue(userID: user.id, kind: .api).token
                return Account(id: user.id, email: user.email, token: token)
            }
            @Sendable func firstLanguage() async throws -> String? {
                try await api.database().closing { try await UserStore(database: $0).find(id: ana.id)?.firstLanguage }
            }
            // A refused request keeps nothing; the first one answered keeps its language (on PostgreSQL a moment
            // later, with the room's other newcomers).
            let refused = try await api.call(
                .get, "/api/v1/courses/999999", as: ana, headers: [.acceptLanguage: "de"])
            #expect(refused.status.code >= 400, "\(refused.text)")
            #expect(try await firstLanguage() == nil)
            let answered = try await api.call(.get, "/api/v1/courses", as: ana, headers: [.acceptLanguage: "fr"])
            #expect(answered.status == .ok, "\(answered.text)")
            try await eventually("Ana's first language kept") { try await firstLanguage() != nil }
            #expect(try await firstLanguage() == "fr")
        }
    }

    @Test func a_first_language_left_for_later_is_kept_before_the_database_closes() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let open = { try Database.postgres(url: postgres.url, logger: Logger(label: "test")) }
        let database = try open()
        let ana: Int64
        do {
            try await Migrations.apply(to: database)
            ana = try await UserStore(database: database).create(
                NewUser(
                    name: "Ana Newcomer", email: "ana@school.test", passwordHash: "-", role: .student, approved: true)
            ).id
            await UserStore(database: database).keepFirstLanguageLater("fr", of: ana, logger: Logger(label: "test"))
            // Still gathering with whoever else arrives: the process is told to stop meanwhile.
            #expect(database.later.running == 1)
        } catch {
            try? await database.shutdown()
            throw error
        }
        try await database.shutdown()
        #expect(database.later.running == 0)
        let kept = try await open().closing { try await UserStore(database: $0).find(id: ana)?.firstLanguage }
        #expect(kept == "fr")
    }
}
