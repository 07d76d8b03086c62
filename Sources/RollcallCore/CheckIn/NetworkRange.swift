/// An address range in CIDR notation (IPv4 or IPv6) that check-ins may come from, such as a campus network.
public struct NetworkRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The network address, 4 or 16 bytes, with the host bits cleared.
    let network: [UInt8]
    let prefix: Int

    /// Parses `10.0.0.0/8`, `2001:db8::/32`, or a bare address meaning that one address.
    public init?(cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = Self.parse(String(parts[0])) else { return nil }
        let maximum = address.count * 8
        var prefix = maximum
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber), let value = Int(parts[1]), (0...maximum).contains(value)
            else { return nil }
            prefix = value
        }
        self.prefix = prefix
        self.network = Self.mask(address, prefix: prefix)
    }

    /// Whether `address` (IPv4, IPv6, or IPv4-mapped IPv6 such as `::ffff:10.1.2.3`) is in the range.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.parse(address) else { return false }
        if network.count == 4 && bytes.count == 16 {
            guard bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] else { return false }
            bytes = Array(bytes.suffix(4))
        }
        guard bytes.count == network.count else { return false }
        return Self.mask(bytes, prefix: prefix) == network
    }

    public var description: String {
        let address =
            network.count == 4
            ? network.map(String.init).joined(separator: ".")
            : Self.ipv6Text(network)
        return "\(address)/\(prefix)"
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let range = NetworkRange(cidr: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not CIDR: \(text)"))
        }
        self = range
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func mask(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = max(0, min(8, prefix - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xFF) >> bits)
        }
    }

    /// 4 bytes for IPv4, 16 for IPv6; brackets and a zone (`%eth0`) are ignored.
    static func parse(_ raw: String) -> [UInt8]? {
        var text = Substring(raw)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        return text.contains(":") ? parseIPv6(text) : parseIPv4(text)
    }

    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                !(part.count > 1 && part.hasPrefix("0")), let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(piece) else { return nil }
                    bytes += v4
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    static func ipv6Text(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        // Compress the longest run of two or more zero groups, as RFC 5952 asks.
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > best.length { best = (index, end - index) }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}
