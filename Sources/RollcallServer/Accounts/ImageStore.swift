import Foundation
import SQLKit

/// An uploaded picture, checked to be the image type it claims.
struct StoredImage: Sendable {
    var contentType: String
    var data: [UInt8]

    static let maxBytes = 2 * 1024 * 1024

    /// The types Rollcall accepts, recognised by their first bytes rather than by what the client says.
    static func sniff(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        return nil
    }
}

/// Pictures and posters, kept in the database so that a backup of it is a backup of everything.
struct ImageStore: Sendable {
    let database: Database

    static func insert(_ image: StoredImage, sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.insert(into: "images").columns("content_type", "data", "created_at")
            .values(SQLBind(image.contentType), SQLBind(Data(image.data)), SQLBind(Date()))
            .returning("id").first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw NotSaved(what: "picture")
        }
        return id
    }

    /// Stores `image` as the picture in `column` of row `id` of `table`, and drops the picture it replaces.
    static func replace(
        _ image: StoredImage, table: String, column: String, id: Int64, database: Database
    ) async throws {
        try await database.transaction { sql in
            let old =
                try await sql.select().column(column).from(table).where("id", .equal, id)
                .first(decodingColumn: column, as: Int64?.self) ?? nil
            let newID = try await insert(image, sql: sql)
            try await sql.update(table).set(column, to: newID).where("id", .equal, id).run()
            if let old { try await sql.delete(from: "images").where("id", .equal, old).run() }
        }
    }

    func find(id: Int64) async throws -> StoredImage? {
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
