/// Comma-separated values as RFC 4180 writes them: what spreadsheets open and what roster imports send.
public enum CSV {
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
        public var message: String {
            switch self {
            case .unterminatedQuote(let line):
                "Line \(line) opens a quoted field that never closes; add the closing quote (\")."
            case .textAfterQuote(let line):
                "Line \(line) has text right after a closing quote; put a comma between the fields."
            }
        }
    }

    /// Reads CSV text: quoted fields may hold commas, doubled quotes and line breaks; CRLF and LF both end a row.
    /// Blank lines are skipped; a byte-order mark at the start is ignored.
    public static func parse(_ text: String) throws(ParseError) -> [Row] {
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
            case ",": endField()
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
        fields.map(escape).joined(separator: ",") + "\r\n"
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

    static func escape(_ raw: String) -> String {
        var text = raw
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first),
            !isPlainNumber(text)
        {
            text = "'" + text
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
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
