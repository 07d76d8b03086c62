import Foundation

/// A mailbox: an address and, when known, the person's name.
public struct Mailbox: Sendable, Equatable {
    public var address: String
    public var name: String?

    public init(address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// The header form: `"Name" <address>`, a name outside ASCII in RFC 2047 encoded words.
    public var header: String {
        guard let name = name.map(MailHeader.singleLine), !name.isEmpty else { return "<\(address)>" }
        if name.allSatisfy({ $0.isASCII }) {
            let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(quoted)\" <\(address)>"
        }
        return "\(MailHeader.encodedWords(name)) <\(address)>"
    }
}

/// An email ready for SMTP: RFC 5322 headers and a MIME multipart/alternative body with a text and an HTML part,
/// each UTF-8 in base64, every line ending in CRLF.
public struct MailMessage: Sendable, Equatable {
    public var from: Mailbox
    public var to: Mailbox
    public var subject: String
    public var text: String
    public var html: String
    public var date: Date
    /// Without the angle brackets: `random@domain`.
    public var messageID: String

    public init(from: Mailbox, to: Mailbox, subject: String, text: String, html: String, date: Date, messageID: String)
    {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.messageID = messageID
    }

    /// Separates the parts; made from the message id, which never appears in base64 text or in the headers' values.
    public var boundary: String {
        "=_rollcall_" + messageID.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// The message as sent after SMTP's DATA, without the final dot.
    public func rendered() -> String {
        let headers = [
            "Date: \(MailHeader.date(date))",
            "From: \(from.header)",
            "To: \(to.header)",
            "Subject: \(MailHeader.encodedWords(subject))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"",
        ]
        var lines = headers + [""]
        for (type, content) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--\(boundary)",
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += MailHeader.base64Lines(Self.crlf(content))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Text with every line ending as CRLF, as MIME's canonical form of text asks.
    static func crlf(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
    }
}

/// Header encodings: RFC 2047 encoded words, RFC 5322 dates, base64 lines.
public enum MailHeader {
    /// ASCII text as it is; other text as UTF-8 base64 encoded words of at most 60 characters each, folded onto
    /// lines of their own, never splitting a character between two words.
    public static func encodedWords(_ text: String) -> String {
        let line = singleLine(text)
        if line.allSatisfy({ $0.isASCII }) && line.utf8.count <= 900 { return line }
        // At most 36 bytes a word: 48 base64 characters and the 12 of "=?UTF-8?B?" and "?=" make 60, so that a word
        // and a header's name fit on a line of 76 characters.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in line {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 36 {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?\(Data(bytes).base64EncodedString())?="
    }

    /// Line breaks and other control characters become spaces: a header value cannot start a new header.
    public static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline || ($0.asciiValue.map { $0 < 32 || $0 == 127 } ?? false) ? " " : $0 })
    }

    /// RFC 5322 date-time in UTC, such as `Tue, 24 Nov 2026 09:54:22 +0000`.
    public static func date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return
            "\(days[(parts.weekday ?? 1) - 1]), \(two(parts.day)) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }

    /// UTF-8 of `text` in base64, 76 characters a line.
    public static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        var lines: [String] = []
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[start..<end]))
            start = end
        }
        return lines
    }
}
