import SQLKit

extension SQLRow {
    /// The column's value, or `nil` where it is `NULL`: a nullable column read the same way on either engine.
    package func decodeIfPresent<Value: Decodable>(column: String, as type: Value.Type) throws -> Value? {
        try decodeNil(column: column) ? nil : try decode(column: column, as: type)
    }
}
