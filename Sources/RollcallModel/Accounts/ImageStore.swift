import Foundation
import RollcallStorage
import SQLKit

/// An uploaded picture, read whole and written anew (`PictureFile`).
package struct StoredImage: Sendable {
    package var contentType: String
    package var data: [UInt8]

    package init(contentType: String, data: [UInt8]) {
        self.contentType = contentType
        self.data = data
    }

    package static let maxBytes = 2 * 1024 * 1024
}

/// Pictures and posters, kept in the database so that a backup of it is a backup of everything.
package struct ImageStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package static func insert(_ image: StoredImage, sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.insert(into: "images").columns("content_type", "data", "created_at")
            .values(SQLBind(image.contentType), SQLBind(Data(image.data)), SQLBind(Date()))
            .returning("id").first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw NotSaved(what: "picture")
        }
        return id
    }

    /// Stores `image` as the picture in `column` of row `id` of `table`, and drops the picture it replaces.
    package static func replace(
        _ image: StoredImage, table: String, column: String, id: Int64, database: Database
    ) async throws {
        try await database.transaction { sql in
            // The owner's row is held: two uploads at once each replace the picture the other left, and none is
            // left behind unreferenced.
            let old =
                try await sql.select().column(column).from(table).where("id", .equal, id).for(.update)
                .first(decodingColumn: column, as: Int64?.self) ?? nil
            let newID = try await insert(image, sql: sql)
            try await sql.update(table).set(column, to: newID).where("id", .equal, id).run()
            if let old { try await sql.delete(from: "images").where("id", .equal, old).run() }
        }
    }

    package func find(id: Int64) async throws -> StoredImage? {
        try await database.read { sql in
            guard
                let row = try await sql.select().columns("content_type", "data").from("images")
                    .where("id", .equal, id).first()
            else { return nil }
            let data = try row.decode(column: "data", as: Data.self)
            return StoredImage(contentType: try row.decode(column: "content_type", as: String.self), data: Array(data))
        }
    }
}
