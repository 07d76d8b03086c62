import Foundation
import HummingbirdBcrypt
import Logging
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage

/// Tasks the `rollcall` command runs outside the server: migrating, demo data, creating an admin.
public enum Maintenance {
    /// Opens the configured database, migrates it, runs `body` with its stores, and closes every connection.
    static func withStores<T: Sendable>(
        _ configuration: Configuration, _ body: @Sendable (Stores) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "rollcall")
        logger.logLevel = .warning
        let database = try openDatabase(configuration, logger: logger)
        do {
            try await Migrations.apply(to: database)
            let result = try await body(
                Stores(
                    database: database, retentionDays: configuration.evidenceDays,
                    language: configuration.defaultLanguage))
            try await database.shutdown()
            return result
        } catch {
            try? await database.shutdown()
            throw error
        }
    }

    /// Brings the schema up to date.
    public static func migrate(_ configuration: Configuration) async throws {
        try await withStores(configuration) { _ in }
    }

    /// Creates an admin account; an address already in use is refused rather than promoted, to keep roles deliberate.
    public static func createAdmin(
        _ configuration: Configuration, name: String, email: String, password: String
    ) async throws {
        let name = try AccountRules.name(name)
        let email = try AccountRules.email(email)
        let password = try AccountRules.password(password)
        let hash = Bcrypt.hash(password, cost: UInt8(configuration.bcryptCost))
        try await withStores(configuration) { stores in
            _ = try await stores.users.create(
                NewUser(
                    name: name, email: email, passwordHash: hash, role: .admin, studentNumber: nil, approved: true,
                    emailVerified: true
                )
            )
        }
    }
}
