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
}
