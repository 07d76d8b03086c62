/// A path on this site, safe to send a browser to after signing in: never a link that leaves the site.
///
/// Browsers drop tab, CR and LF from a URL before reading it and treat a backslash as a slash, so `/\t/evil.example`
/// and `/\evil.example` both lead to another site. Only a path that starts with one slash, followed by anything
/// but a slash or backslash, with no control characters, backslashes or percent-encoded slashes, is kept.
public struct LocalPath: Equatable, Sendable {
    public let text: String

    public init?(_ text: String) {
        guard text.hasPrefix("/"), !text.hasPrefix("//"),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "\\" })
        else { return nil }
        let lowered = text.lowercased()
        // Encoded slashes, backslashes and controls become the real thing in some browsers' second reading.
        guard !["%2f", "%5c", "%09", "%0a", "%0d", "%00"].contains(where: lowered.contains) else { return nil }
        self.text = text
    }
}
