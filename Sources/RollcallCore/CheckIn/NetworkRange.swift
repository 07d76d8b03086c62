/// An address range in CIDR notation, IPv4 or IPv6, that check-ins may come from, such as a campus network.
///
/// Parsing is strict, so what a teacher typed means one thing only: IPv4 is four decimal parts without leading
/// zeros (which some tools read as octal); IPv6 is RFC 4291 text with at most one `::` and an optional dotted IPv4
/// tail; the prefix is plain decimal within the family's width. Host bits after the prefix are cleared, so
/// `192.168.1.7/24` is the range `192.168.1.0/24`, and `description` writes the canonical text (RFC 5952 for IPv6).
public struct NetworkRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The network address, 4 bytes for IPv4 or 16 for IPv6, with the host bits cleared.
    let network: [UInt8]
    /// Leading bits that must match: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Parses `10.0.0.0/8`, `2001:db8::/32`, or a bare address meaning just that address (/32 or /128).
    /// `nil` for anything else: a bad prefix, an empty part, brackets, a zone, spaces.
    public init?(cidr: String) {
        let parts = cidr.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.parseAddress(parts[0]) else { return nil }
        let width = address.count * 8
        var prefixLength = width
        if parts.count == 2 {
            let digits = parts[1].utf8
            guard (1...3).contains(digits.count), digits.allSatisfy(Self.isDigit),
                digits.count == 1 || digits.first != UInt8(ascii: "0"),
                let value = Int(parts[1]), value <= width
            else { return nil }
            prefixLength = value
        }
        self.prefixLength = prefixLength
        self.network = Self.masked(address, prefixLength: prefixLength)
    }

    /// Whether the range holds IPv4 addresses.
    public var isIPv4: Bool { network.count == 4 }

    /// Whether a client's address, as the server's socket reports it, is in the range. IPv4-mapped IPv6
    /// (`::ffff:10.1.2.3`, what a dual-stack listener reports for IPv4 clients) matches IPv4 ranges, and an IPv4
    /// address matches IPv6 ranges through its mapped form. Brackets and a zone (`fe80::1%en0`) are ignored.
    /// Anything that is not an address is in no range.
    public func contains(_ address: String) -> Bool {
        var text = Substring(address)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":"), let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard var bytes = Self.parseAddress(text) else { return false }
        switch (network.count, bytes.count) {
        case (4, 16):
            guard bytes.starts(with: Self.mappedPrefix) else { return false }
            bytes.removeFirst(Self.mappedPrefix.count)
        case (16, 4):
            bytes = Self.mappedPrefix + bytes
        default:
            break
        }
        return Self.masked(bytes, prefixLength: prefixLength) == network
    }

    public var description: String {
        (isIPv4 ? Self.ipv4Text(network[...]) : Self.ipv6Text(network)) + "/\(prefixLength)"
    }

    /// Decodes from the CIDR text, so stored settings and API bodies hold ranges as people write them.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let range = NetworkRange(cidr: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "“\(text)” is not an address range")
            )
        }
        self = range
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // MARK: Parsing

    /// `::ffff:0:0/96`, where IPv6 carries IPv4 addresses (RFC 4291 §2.5.5.2).
    static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.indices.map { index in
            let bits = min(8, max(0, prefixLength - index * 8))
            return bits == 0 ? 0 : bytes[index] & ~(0xFF >> UInt8(bits))
        }
    }

    /// 4 bytes for IPv4 text, 16 for IPv6 text, `nil` for anything else.
    static func parseAddress(_ text: Substring) -> [UInt8]? {
        text.contains(":") ? parseIPv6(Array(text.utf8)) : parseIPv4(Array(text.utf8)[...])
    }

    static func parseIPv4(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(isDigit),
                part.count == 1 || part.first != UInt8(ascii: "0")
            else { return nil }
            let value = part.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard value <= 255 else { return nil }
            bytes.append(UInt8(value))
        }
        return bytes
    }

    static func parseIPv6(_ text: [UInt8]) -> [UInt8]? {
        let colon = UInt8(ascii: ":")
        guard let gap = text.indices.dropLast().first(where: { text[$0] == colon && text[$0 + 1] == colon }) else {
            guard let bytes = groups(text[...], dottedTail: true), bytes.count == 16 else { return nil }
            return bytes
        }
        let head = text[..<gap]
        let tail = text[(gap + 2)...]
        // A colon next to the gap (":::") or a second gap would leave an empty group or an ambiguous length.
        guard tail.first != colon,
            !tail.indices.dropLast().contains(where: { tail[$0] == colon && tail[$0 + 1] == colon }),
            let headBytes = groups(head, dottedTail: false), let tailBytes = groups(tail, dottedTail: true),
            headBytes.count + tailBytes.count <= 14
        else { return nil }
        return headBytes + Array(repeating: 0, count: 16 - headBytes.count - tailBytes.count) + tailBytes
    }

    /// Colon-separated groups of 1–4 hex digits; the last may be a dotted IPv4 address where the text allows it.
    private static func groups(_ text: ArraySlice<UInt8>, dottedTail: Bool) -> [UInt8]? {
        guard !text.isEmpty else { return [] }
        let pieces = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            if dottedTail, index == pieces.count - 1, piece.contains(UInt8(ascii: ".")) {
                guard let ipv4 = parseIPv4(piece) else { return nil }
                bytes += ipv4
                continue
            }
            guard (1...4).contains(piece.count) else { return nil }
            var value = 0
            for character in piece {
                guard let digit = hexValue(character) else { return nil }
                value = value << 4 | digit
            }
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        return bytes.count <= 16 ? bytes : nil
    }

    private static func isDigit(_ character: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character)
    }

    private static func hexValue(_ character: UInt8) -> Int? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(character - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(character - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(character - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    // MARK: Writing

    static func ipv4Text(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map(String.init).joined(separator: ".")
    }

    /// RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups (the first, on
    /// a tie) as `::`, and IPv4-mapped addresses with a dotted tail.
    static func ipv6Text(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: mappedPrefix) { return "::ffff:" + ipv4Text(bytes[12...]) }
        let groups = stride(from: 0, to: 16, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
        var best = (start: 0, count: 0)
        var start = 0
        while start < groups.count {
            var end = start
            while end < groups.count && groups[end] == 0 { end += 1 }
            if end - start > best.count { best = (start, end - start) }
            start = max(end, start + 1)
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.count >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::"
            + hex[(best.start + best.count)...].joined(separator: ":")
    }
}
