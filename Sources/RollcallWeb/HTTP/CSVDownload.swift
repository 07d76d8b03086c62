import Foundation
import Hummingbird
import NIOCore
import RollcallCore
import RollcallWords

/// A CSV file handed to a browser as a download: every export (attendance, quiz results, exposure reports) answers
/// through it.
package enum CSVDownload {
    /// The download of `csv`, named after what it holds (`name`, such as “Biology 101 attendance”), with a byte-order
    /// mark so that spreadsheets read it as UTF-8. The name keeps its accents (`filename*`, RFC 6266), with a
    /// plain-letters one for older browsers.

    /// The download with the separator the request asks for (`?separator=semicolon` for French or German
    /// spreadsheets, whose numbers then take a decimal comma; `tab`; commas by default).
    package static func response(_ csv: String, name: String, request: Request) throws -> Response {
        let asked = request.uri.queryParameters.get("separator")
        guard let separator = asked.map({ CSV.Separator(rawValue: $0) }) ?? .comma else {
            throw AppError.invalid(
                RuleViolation(
                    field: "separator", message: "“separator” is comma, semicolon or tab; leave it out for commas."))
        }
        return response(try CSV.reseparated(csv, as: separator), name: name)
    }

    package static func response(_ csv: String, name: String) -> Response {
        let slug = name.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
            .split(separator: "-").joined(separator: "-")
        let file = (slug.isEmpty ? "rollcall" : slug) + ".csv"
        let plain = String(
            file.folding(options: .diacriticInsensitive, locale: nil).unicodeScalars.filter(\.isASCII)
                .map(Character.init))
        let encoded = file.addingPercentEncoding(withAllowedCharacters: fileNameCharacters) ?? plain
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(string: "\u{FEFF}" + csv))
        )
    }

    /// Characters left as they are in an RFC 5987 file name: ASCII letters, digits and `-._~`.
    package static let fileNameCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}

extension Double {
    /// Points as exports write them: whole numbers without decimals, others with two.
    package var pointsText: String {
        self == rounded() ? String(Int(self)) : String(format: "%.2f", self)
    }
}
