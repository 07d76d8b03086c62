import Foundation

/// JSON that Rollcall stored itself: a value that no longer decodes is a damaged row, refused by name, never read
/// as if it were empty.
package enum StoredJSON {
    package static func decode<T: Decodable>(_ text: String, as type: T.Type = T.self, row what: String) throws -> T {
        do {
            return try JSONCoding.decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw UnreadableRow(what: "\(what) (\(error))")
        }
    }
}
