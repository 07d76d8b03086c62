/// Crockford's base32: digits and upper-case letters without I, L, O and U, so a code fits QR alphanumeric mode,
/// survives being read aloud, and forgives the usual misreadings.
enum Base32 {
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// Five bits a character, most significant first; a trailing partial group is padded with zero bits.
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes whole bytes; lower case is accepted, I and L read as 1 and O as 0, and any other character (U,
    /// punctuation, spaces, non-ASCII) makes the text undecodable. Leftover bits of a partial group are dropped.
    static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            guard let value = value(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        return output
    }

    /// The 5-bit value of one character, or `nil` when it is not part of the forgiving alphabet.
    static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return letterValue(character - 32)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return letterValue(character)
        default: return nil
        }
    }

    private static func letterValue(_ upper: UInt8) -> UInt8? {
        switch upper {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        case UInt8(ascii: "U"): return nil
        default: return alphabet.firstIndex(of: upper).map(UInt8.init)
        }
    }
}
