/// Comma-separated values as RFC 4180 writes them: what spreadsheets open and what roster imports send. Spreadsheets
/// set to French or German save semicolons instead, and "Unicode text" tabs; a file is read with any of the three.
public enum CSV {
    /// What separates the fields of a row.
    public enum Separator: String, CaseIterable, Sendable, Codable {
        case comma
        case semicolon
        case tab

        public var scalar: Unicode.Scalar {
            switch self {
            case .comma: ","
            case .semicolon: ";"
            case .tab: "\t"
            }
        }
    }

    /// The separator of the first row that holds one, outside quotes: the one found most often there; commas when
    /// none is found or two are found as often.
    public static func separator(of text: String) -> Separator {
        var counts: [Separator: Int] = [:]
        var quoted = false
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.toggle() }
            if quoted { continue }
            if scalar == "\n" || scalar == "\r" {
                if !counts.isEmpty { break }
                continue
            }
            if let separator = Separator.allCases.first(where: { $0.scalar == scalar }) {
                counts[separator, default: 0] += 1
            }
        }
        let most = counts.values.max() ?? 0
        let found = Separator.allCases.filter { counts[$0] == most && most > 0 }
        return found.count == 1 ? found[0] : .comma
    }

    /// Text encodings a roster file arrives in.
    public enum Encoding: String, Sendable, Codable {
        case utf8 = "utf-8"
        case utf16 = "utf-16"
        case windows1252 = "windows-1252"
    }

    /// The text of a file: UTF-8 (with or without a byte-order mark), UTF-16 with its byte-order mark (a
    /// spreadsheet's "Unicode text"), or else Windows-1252, which older Excel on Windows saves; `nil` when the bytes
    /// are none of these (a byte Windows-1252 leaves undefined, or a NUL, as in a binary file).
    public static func decode(_ bytes: [UInt8]) -> (text: String, encoding: Encoding)? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            let units = stride(from: 2, to: bytes.count - 1, by: 2).map { index -> UInt16 in
                little
                    ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                    : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            }
            guard bytes.count % 2 == 0, let text = String(validating: units, as: UTF16.self), !text.contains("\0")
            else { return nil }
            return (text, .utf16)
        }
        guard !bytes.contains(0) else { return nil }
        if let text = String(validating: bytes, as: UTF8.self) {
            return (text.unicodeScalars.first == "\u{FEFF}" ? String(text.dropFirst()) : text, .utf8)
        }
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            guard let scalar = windows1252(byte) else { return nil }
            scalars.append(scalar)
        }
        return (String(scalars), .windows1252)
    }

    /// Windows-1252: Latin-1, but for 0x80–0x9F, where it puts typographic marks (and leaves five bytes undefined).
    static func windows1252(_ byte: UInt8) -> Unicode.Scalar? {
        let high: [UInt32?] = [
            0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil,
            0x017D, nil, nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
            0x0153, nil, 0x017E, 0x0178,
        ]
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        return high[Int(byte - 0x80)].flatMap(Unicode.Scalar.init)
    }

    /// A row read from CSV text, with the line it starts on so that errors can name it.
    public struct Row: Equatable, Sendable {
        public var line: Int
        public var fields: [String]

        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    /// Why CSV text could not be read.
    public enum ParseError: Error, Equatable, Sendable {
        /// A quoted field was still open when the text ended.
        case unterminatedQuote(line: Int)
        /// Something other than a comma or a line end followed a closing quote.
        case textAfterQuote(line: Int)

        /// A sentence a person understands.
        public var message: Phrase {
            switch self {
            case .unterminatedQuote(let line):
                "Line \(line) opens a quoted field that never closes; add the closing quote (\")."
            case .textAfterQuote(let line):
                "Line \(line) has text right after a closing quote; put a comma between the fields."
            }
        }
    }

    /// Reads CSV text: quoted fields may hold the separator, doubled quotes and line breaks; CRLF and LF both end a
    /// row. Blank lines are skipped; a byte-order mark at the start is ignored.
    public static func parse(_ text: String, separator: Separator = .comma) throws(ParseError) -> [Row] {
        let separatorScalar = separator.scalar
        var rows: [Row] = []
        var fields: [String] = []
        var field: [Unicode.Scalar] = []
        var line = 1
        var rowLine = 1
        var quoted = false
        var afterQuote = false
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }

        func endField() {
            fields.append(String(String.UnicodeScalarView(field)))
            field = []
            afterQuote = false
        }
        func endRow() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append(Row(line: rowLine, fields: fields)) }
            fields = []
        }

        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if quoted {
                if scalar == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case separatorScalar: endField()
            case "\r" where index < scalars.count && scalars[index] == "\n": continue
            case "\n", "\r":
                endRow()
                line += 1
                rowLine = line
            case "\"" where field.isEmpty && !afterQuote: quoted = true
            default:
                guard !afterQuote else { throw .textAfterQuote(line: line) }
                field.append(scalar)
            }
        }
        guard !quoted else { throw .unterminatedQuote(line: rowLine) }
        if !field.isEmpty || !fields.isEmpty || afterQuote { endRow() }
        return rows
    }

    /// One line of CSV, ending in CRLF. A field that a spreadsheet would run as a formula (it starts with `=`, `+`,
    /// `-`, `@`) is prefixed with an apostrophe, so that a name typed by a student cannot run in a teacher's
    /// spreadsheet.
    public static func line(_ fields: [String]) -> String {
        fields.map { escape($0, separator: ",") }.joined(separator: ",") + "\r\n"
    }

    /// CSV written with commas, written again with `separator`. With semicolons, as French or German spreadsheets
    /// read them, a decimal number takes a decimal comma (`2,5`) so that it stays a number there.
    public static func reseparated(_ text: String, as separator: Separator) throws(ParseError) -> String {
        guard separator != .comma else { return text }
        let mark = String(Character(separator.scalar))
        var lines = ""
        var last = 0
        for row in try parse(text) {
            // Blank lines between the parts of a file (an exposure report's two tables) stay.
            lines += String(repeating: "\r\n", count: max(0, row.line - last - 1))
            let fields = row.fields.map { field in
                // A number stays a number: it needs no guard against formulas, only its decimal comma.
                separator == .semicolon && isPlainNumber(field)
                    ? field.replacingAll(".", with: ",") : escape(field, separator: separator.scalar)
            }
            lines += fields.joined(separator: mark) + "\r\n"
            last = row.line + row.fields.reduce(0) { $0 + $1.unicodeScalars.count { $0 == "\n" } }
        }
        return lines
    }

    /// A signed decimal number as a spreadsheet reads it (`-3.5`, `+1E-2`), which stays a number. Whatever else
    /// `Double` would parse (`-inf`, `-nan`, `+0x1p4`) a spreadsheet may evaluate, so it is written as text.
    static func isPlainNumber(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            var count = 0
            while let next = scalars.first, ("0"..."9").contains(next) {
                scalars.removeFirst()
                count += 1
            }
            return count
        }
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
        var mantissa = digits()
        if scalars.first == "." {
            scalars.removeFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars.removeFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    static func escape(_ raw: String, separator: Unicode.Scalar) -> String {
        var text = raw
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first),
            !isPlainNumber(text)
        {
            text = "'" + text
        }
        guard
            text.unicodeScalars.contains(where: {
                $0 == separator || $0 == "\"" || $0 == "\n" || $0 == "\r"
            })
        else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}

extension String {
    /// Replaces every `target` with `replacement`, without Foundation.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
