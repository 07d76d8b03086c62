import Foundation
import RollcallStorage
import SQLKit

/// Which of the schema's steps (`Migrations.steps`) a database has taken, compared with this build's.
struct SchemaVersion: Sendable, Equatable {
    /// The names of the steps applied, in the order this build knows them, unknown ones last.
    var applied: [String]

    /// Reads the steps applied; a database with no `schema_migrations` table has taken none.
    static func read(_ store: OperatedStore) async throws -> SchemaVersion {
        try await store.using { try await read($0) }
    }

    static func read(_ sql: any SQLDatabase) async throws -> SchemaVersion {
        var names: [String] = []
        if try await StoredTables.names(in: sql).contains("schema_migrations") {
            names = try await sql.select().column("name").from("schema_migrations").all(
                decodingColumn: "name", as: String.self)
        }
        let known = Migrations.steps.map(\.name)
        return SchemaVersion(
            applied: known.filter(names.contains) + names.filter { !known.contains($0) }.sorted())
    }

    /// The steps a newer build of Rollcall applied, which this one does not know.
    var unknown: [String] { applied.filter { name in !Migrations.steps.contains { $0.name == name } } }

    /// The steps this build would apply, in order.
    var pending: [String] { Migrations.steps.map(\.name).filter { !applied.contains($0) } }

    /// The latest step applied, as the version is shown to an operator.
    var latest: String { applied.last ?? "none" }

    /// Throws when a newer Rollcall wrote the schema: this build would misread what it added.
    func refuseNewer() throws {
        guard unknown.isEmpty else {
            throw OperationRefused(
                message:
                    "The database was written by a newer Rollcall (its schema has \(unknown.joined(separator: ", "))); use that version or a newer one."
            )
        }
    }
}
