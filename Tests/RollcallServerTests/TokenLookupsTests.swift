import Foundation
import Logging
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Tokens looked up in groups: a crowd asking at once gets one statement per group, and each caller their own answer.
@Suite("Token look-ups", .timeLimit(.minutes(3)))
struct TokenLookupsTests {
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_crowd_looking_up_tokens_at_once_each_gets_their_own_identity(engine: Database.Engine) async throws {
        try await withMigratedDatabase(engine) { database in
            // Setup: 150 people with a bearer token each, one of them with a browser's token too, an expired token
            // and one never issued.
            let users = UserStore(database: database)
            let tokens = AccessTokenStore(database: database)
            var owners: [String: Int64] = [:]
            for number in 0..<150 {
                let user = try await users.create(
                    NewUser(
                        name: "Student \(number)", email: "s\(number)@school.test", passwordHash: "-",
                        role: .student, approved: true))
                owners[try await tokens.issue(userID: user.id, kind: .api).token] = user.id
            }
            let someone = owners.values.min()!
            let browser = try await tokens.issue(userID: someone, kind: .web).token
            let expired = try await tokens.issue(userID: someone, kind: .api).token
            try await database.write { sql in
                try await sql.update("access_tokens").set("expires_at", to: Date(timeIntervalSinceNow: -1))
                    .where("token_hash", .equal, OpaqueToken.digest(expired)).run()
            }
            let refused = [browser, expired, "never-issued"]

            // The call under test: everyone at once, some tokens twice, through the store a request goes through.
            let asked = Array(owners.keys) + Array(owners.keys.prefix(10)) + refused
            let answers = try await withThrowingTaskGroup(of: (String, Int64?).self) { group in
                for token in asked.shuffled() {
                    group.addTask { (token, try await tokens.identity(token: token, kind: .api)?.user.id) }
                }
                return try await group.reduce(into: [(String, Int64?)]()) { $0.append($1) }
            }

            // Validation: each token answers its own owner; an expired, unknown or browser's token nobody.
            #expect(answers.count == asked.count)
            for (token, answer) in answers {
                #expect(answer == owners[token], "the token of \(owners[token].map(String.init) ?? token)")
            }
            // And alone, once the crowd is gone: a group of one.
            let lone = OpaqueToken.digest(owners.keys.first!)
            #expect(try await database.tokenLookups.find(digest: lone)?.user.id == owners[owners.keys.first!])
            #expect(try await database.tokenLookups.find(digest: OpaqueToken.digest(expired)) == nil)
        }
    }

    @Test func a_look_up_that_read_before_a_sign_out_does_not_remember_the_token() async throws {
        try await CachesTests.withIdentityCache { database, cache in
            let user = try await UserStore(database: database).create(
                NewUser(name: "Ana", email: "ana@school.test", passwordHash: "-", role: .student, approved: true))
            let tokens = AccessTokenStore(database: database, identities: cache)
            let token = try await tokens.issue(userID: user.id, kind: .api).token
            let digest = OpaqueToken.digest(token)
            // A look-up reads the row; meanwhile the token is signed out and forgotten; then the look-up answers.
            let mark = cache.mark
            let found = try #require(try await database.tokenLookups.find(digest: digest))
            try await tokens.revoke(tokenHash: digest)
            let identity = Identity(user: found.user, tokenHash: digest, csrf: found.csrf, viaCookie: false)
            cache.remember(identity, readSince: mark)
            #expect(cache.identity(tokenHash: digest) == nil, "a signed-out token is not remembered")
            #expect(try await tokens.identity(token: token, kind: .api) == nil)
            // With nothing forgotten meanwhile, a look-up's answer is remembered.
            let other = try await tokens.issue(userID: user.id, kind: .api).token
            #expect(try await tokens.identity(token: other, kind: .api) != nil)
            #expect(cache.identity(tokenHash: OpaqueToken.digest(other)) != nil)
        }
    }
}
