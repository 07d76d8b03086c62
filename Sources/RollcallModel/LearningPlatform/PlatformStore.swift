import Foundation
import RollcallStorage
import SQLKit

/// The platforms an admin registered, or that registered themselves.
package struct PlatformStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// What an admin gives to register a platform, already checked.
    package struct Registration: Sendable {
        package var name: String
        package var issuer: String
        package var clientId: String
        package var deploymentIds: [String]
        package var authorizationUrl: String
        package var tokenUrl: String
        package var jwksUrl: String

        package init(
            name: String, issuer: String, clientId: String, deploymentIds: [String], authorizationUrl: String,
            tokenUrl: String, jwksUrl: String
        ) {
            self.name = name
            self.issuer = issuer
            self.clientId = clientId
            self.deploymentIds = deploymentIds
            self.authorizationUrl = authorizationUrl
            self.tokenUrl = tokenUrl
            self.jwksUrl = jwksUrl
        }
    }

    private struct Row: Decodable {
        package var id: Int64
        package var name: String
        package var issuer: String
        package var clientId: String
        package var deploymentIds: String
        package var authorizationUrl: String
        package var tokenUrl: String
        package var jwksUrl: String
        package var createdAt: Date

        package func platform() throws -> LearningPlatform {
            LearningPlatform(
                id: id, name: name, issuer: issuer, clientId: clientId,
                deploymentIds: try StoredJSON.decode(
                    deploymentIds, as: [String].self, row: "a platform's deployments"),
                authorizationUrl: authorizationUrl, tokenUrl: tokenUrl, jwksUrl: jwksUrl, createdAt: createdAt)
        }
    }

    // MARK: Registrations

    package func list() async throws -> [LearningPlatform] {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_platforms").orderBy("id")
                .all(decoding: Row.self, with: .rollcall).map { try $0.platform() }
        }
    }

    package func find(id: Int64) async throws -> LearningPlatform? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_platforms").where("id", .equal, id)
                .first(decoding: Row.self, with: .rollcall)?.platform()
        }
    }

    /// The platforms with this issuer; of these, the one with `clientID` when it is given.
    package func find(issuer: String, clientID: String?) async throws -> [LearningPlatform] {
        try await database.read { sql in
            let select = sql.select().column("*").from("lti_platforms").where("issuer", .equal, issuer)
            if let clientID { select.where("client_id", .equal, clientID) }
            return try await select.all(decoding: Row.self, with: .rollcall).map { try $0.platform() }
        }
    }

    /// Registers a platform; `nil` when one with this issuer and client id is registered already.
    package func create(_ registration: Registration, now: Date = Date()) async throws -> LearningPlatform? {
        try await database.write { sql in try await Self.insert(registration, createdAt: now, in: sql) }
    }

    /// Inserts a registration in a transaction under way; `nil` when its issuer and client id are taken.
    package static func insert(_ registration: Registration, createdAt: Date, in sql: any SQLDatabase) async throws
        -> LearningPlatform?
    {
        try await values(registration, createdAt: createdAt, into: sql.insert(into: "lti_platforms"))
            .ignoringConflicts(with: ["issuer", "client_id"])
            .returning("*").first(decoding: Row.self, with: .rollcall)?.platform()
    }

    /// Replaces a registration's settings; `nil` when there is no such platform. Throws `PlatformExists` when the
    /// new issuer and client id are another registration's.
    package func update(id: Int64, _ registration: Registration) async throws -> LearningPlatform? {
        try await database.transaction { sql in
            if try await sql.select().column("id").from("lti_platforms")
                .where("issuer", .equal, registration.issuer).where("client_id", .equal, registration.clientId)
                .where("id", .notEqual, id).first() != nil
            {
                throw PlatformExists()
            }
            let ids = String(decoding: try JSONEncoder().encode(registration.deploymentIds), as: UTF8.self)
            return try await sql.update("lti_platforms").set("name", to: registration.name)
                .set("issuer", to: registration.issuer).set("client_id", to: registration.clientId)
                .set("deployment_ids", to: ids).set("authorization_url", to: registration.authorizationUrl)
                .set("token_url", to: registration.tokenUrl).set("jwks_url", to: registration.jwksUrl)
                .where("id", .equal, id).returning("*").first(decoding: Row.self, with: .rollcall)?.platform()
        }
    }

    /// Lets the registered platforms frame Rollcall's pages (their issuers' and authorization endpoints' origins),
    /// and nobody else.
    package func allowFraming(_ framing: FrameAncestors) async throws {
        framing.allow(try await list().flatMap { [$0.issuer, $0.authorizationUrl] })
    }

    /// Removes a registration with its people's links and course links; the accounts and courses stay.
    package func delete(id: Int64) async throws -> Bool {
        try await database.write { sql in
            try await sql.delete(from: "lti_platforms").where("id", .equal, id).returning("id").first() != nil
        }
    }

    private static func values(_ registration: Registration, createdAt: Date, into insert: SQLInsertBuilder) throws
        -> SQLInsertBuilder
    {
        let ids = String(decoding: try JSONEncoder().encode(registration.deploymentIds), as: UTF8.self)
        return insert.columns(
            "name", "issuer", "client_id", "deployment_ids", "authorization_url", "token_url", "jwks_url", "created_at"
        ).values(
            SQLBind(registration.name), SQLBind(registration.issuer), SQLBind(registration.clientId), SQLBind(ids),
            SQLBind(registration.authorizationUrl), SQLBind(registration.tokenUrl), SQLBind(registration.jwksUrl),
            SQLBind(createdAt))
    }

    /// The issuer and client id are another registration's.
    package struct PlatformExists: Error {}
}
