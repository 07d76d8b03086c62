/// One decoded CBOR data item, from the subset WebAuthn uses: integers, byte and text strings, arrays, maps and
/// the simple values false, true and null.
public indirect enum CBOR: Equatable, Sendable {
    case unsigned(UInt64)
    /// The negative integer `-1 - n`, kept as `n` so that the whole range fits.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Keys in the order they came; a key appears at most once.
    case map([(key: CBOR, value: CBOR)])
    case bool(Bool)
    case null

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The value as a Swift integer, when it is an integer that fits.
    public var int: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    public var text: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The entries of a map, or `nil` for anything else.
    public var entries: [(key: CBOR, value: CBOR)]? {
        if case .map(let entries) = self { entries } else { nil }
    }

    /// The value under an integer key (COSE labels), when this is a map.
    public subscript(label: Int) -> CBOR? {
        entries?.first { $0.key.int == label }?.value
    }

    /// The value under a text key (attestation objects), when this is a map.
    public subscript(key: String) -> CBOR? {
        entries?.first { $0.key.text == key }?.value
    }
}

/// Why bytes are not acceptable CBOR; each case is a distinct way to be malformed or outside the accepted subset.
public enum CBORError: Error, Equatable, Sendable {
    /// The bytes end inside an item.
    case truncated
    /// Bytes follow the item where none may.
    case trailingBytes
    /// An indefinite-length string, array or map; WebAuthn encodes every length.
    case indefiniteLength
    /// An additional-information value that the standard reserves (28–30).
    case reservedAdditionalInfo
    /// A tag, a floating-point number or an unassigned simple value.
    case unsupportedItem
    /// A text string that is not UTF-8.
    case invalidText
    /// Arrays and maps nested deeper than the limit.
    case tooDeep
    /// A string, array or map longer than the limit.
    case tooLong
    /// A map with the same key twice.
    case duplicateKey
}

/// A strict decoder for the CBOR subset above, bounded in depth and length so that no input can exhaust memory.
public struct CBORDecoder: Sendable {
    public var maxDepth: Int
    /// The most elements an array or map, or bytes a string, may have.
    public var maxLength: Int

    public init(maxDepth: Int = 16, maxLength: Int = 65_536) {
        self.maxDepth = maxDepth
        self.maxLength = maxLength
    }

    /// Decodes exactly one item that spans all of `bytes`.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw .trailingBytes }
        return item
    }

    /// Decodes one item starting at `start`, answering it and the index just past it; bytes after it are left alone.
    public func decodePrefix(_ bytes: [UInt8], from start: Int) throws(CBORError) -> (CBOR, Int) {
        var reader = Reader(bytes: bytes, index: start)
        let value = try item(&reader, depth: 0)
        return (value, reader.index)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index: Int

        var remaining: Int { bytes.count - index }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard index < bytes.count else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= remaining else { throw .truncated }
            defer { index += count }
            return bytes[index..<index + count]
        }

        mutating func number(_ width: Int) throws(CBORError) -> UInt64 {
            try take(width).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    private func item(_ reader: inout Reader, depth: Int) throws(CBORError) -> CBOR {
        let initial = try reader.byte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 28...30: throw .reservedAdditionalInfo
            case 31: throw .indefiniteLength
            default: throw .unsupportedItem
            }
        }
        let argument: UInt64
        switch info {
        case 0...23: argument = UInt64(info)
        case 24: argument = try reader.number(1)
        case 25: argument = try reader.number(2)
        case 26: argument = try reader.number(4)
        case 27: argument = try reader.number(8)
        case 31: throw .indefiniteLength
        default: throw .reservedAdditionalInfo
        }
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2, 3:
            let count = try length(argument, available: reader.remaining)
            let content = Array(try reader.take(count))
            if major == 2 { return .bytes(content) }
            // Decoding replaces invalid sequences, so a text that does not survive the round trip was not UTF-8.
            let text = String(decoding: content, as: UTF8.self)
            guard text.utf8.elementsEqual(content) else { throw .invalidText }
            return .text(text)
        case 4:
            // Every element takes at least one byte, so a count beyond what is left is truncated before any allocation.
            let count = try length(argument, available: reader.remaining)
            guard depth < maxDepth else { throw .tooDeep }
            var elements: [CBOR] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try item(&reader, depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try length(argument, available: reader.remaining / 2)
            guard depth < maxDepth else { throw .tooDeep }
            var entries: [(key: CBOR, value: CBOR)] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try item(&reader, depth: depth + 1)
                guard !entries.contains(where: { $0.key == key }) else { throw .duplicateKey }
                entries.append((key, try item(&reader, depth: depth + 1)))
            }
            return .map(entries)
        default:
            throw .unsupportedItem
        }
    }

    private func length(_ argument: UInt64, available: Int) throws(CBORError) -> Int {
        guard argument <= UInt64(maxLength) else { throw .tooLong }
        guard argument <= UInt64(available) else { throw .truncated }
        return Int(argument)
    }
}
