import Foundation
import RollcallCore

/// The one JSON date format of every answer: ISO 8601 in UTC with milliseconds, as in the live messages
/// (`2026-09-01T09:00:00.123Z`). Requests may send dates with or without fractional seconds.
package enum JSONCoding {
    /// Encodes every API answer (`AppRequestContext.responseEncoder`).
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.millisecondText)
        }
        return encoder
    }()

    /// Decodes every request body: dates with or without fractional seconds.
    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Date(isoText: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an ISO 8601 date and time.")
            }
            return date
        }
        return decoder
    }()
}

extension Date {
    /// An RFC 3339 date and time, with or without fractional seconds, read strictly (`RFC3339.moment`):
    /// `2026-09-01T09:00:00Z` or `2026-09-01T09:00:00.123+02:00`.
    package init?(isoText text: String) {
        guard let date = RFC3339.moment(text) else { return nil }
        self = date
    }
}
