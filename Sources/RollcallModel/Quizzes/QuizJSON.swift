import Foundation
import RollcallCore
import RollcallStorage

/// The JSON a quiz's rows keep: definitions, answers and flag reports. A value that no longer decodes is a damaged
/// row, refused by name.
package enum QuizJSON {
    package static func decode<T: Decodable>(_ text: String, as type: T.Type = T.self) throws -> T {
        try StoredJSON.decode(text, row: "\(T.self)")
    }

    package static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try SessionChange.encoder.encode(value), as: UTF8.self)
    }
}
