/// The text as one segment in the most compact mode that holds all of it.
struct Segment {
    enum Mode {
        case numeric, alphanumeric, byte

        var indicator: Int {
            switch self {
            case .numeric: 0b0001
            case .alphanumeric: 0b0010
            case .byte: 0b0100
            }
        }

        /// Bits of the character count, which grow with the version.
        func countBits(version: Int) -> Int {
            let band = version <= 9 ? 0 : version <= 26 ? 1 : 2
            switch self {
            case .numeric: return [10, 12, 14][band]
            case .alphanumeric: return [9, 11, 13][band]
            case .byte: return [8, 16, 16][band]
            }
        }
    }

    static let alphanumericSet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    let mode: Mode
    let bytes: [UInt8]
    /// Characters for numeric and alphanumeric, bytes for byte mode.
    var count: Int { bytes.count }

    init(_ text: String) {
        bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            mode = .numeric
        } else if bytes.allSatisfy(Self.alphanumericSet.contains) {
            mode = .alphanumeric
        } else {
            mode = .byte
        }
    }

    var dataBits: Int {
        switch mode {
        case .numeric: count / 3 * 10 + [0, 4, 7][count % 3]
        case .alphanumeric: count / 2 * 11 + (count % 2) * 6
        case .byte: count * 8
        }
    }

    func bitLength(version: Int) -> Int {
        let countBits = mode.countBits(version: version)
        guard count < 1 << countBits else { return Int.max }
        return 4 + countBits + dataBits
    }

    /// The data codewords: mode, count, data, terminator, and the alternating pad bytes.
    func codewords(version: Int, level: QRCode.ErrorCorrection) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(mode.indicator, count: 4)
        bits.append(count, count: mode.countBits(version: version))
        switch mode {
        case .numeric:
            let digits = bytes.map { Int($0 - UInt8(ascii: "0")) }
            for start in stride(from: 0, to: digits.count, by: 3) {
                let group = digits[start..<min(start + 3, digits.count)]
                bits.append(group.reduce(0) { $0 * 10 + $1 }, count: [0, 4, 7, 10][group.count])
            }
        case .alphanumeric:
            let values = bytes.map { Self.alphanumericSet.firstIndex(of: $0)! }
            for start in stride(from: 0, to: values.count, by: 2) {
                if start + 1 < values.count {
                    bits.append(values[start] * 45 + values[start + 1], count: 11)
                } else {
                    bits.append(values[start], count: 6)
                }
            }
        case .byte:
            for byte in bytes { bits.append(Int(byte), count: 8) }
        }
        let capacity = Capacity.dataCodewords(version: version, level: level) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<min(start + 8, bits.count)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }
}
