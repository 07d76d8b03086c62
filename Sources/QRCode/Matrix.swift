/// The grid being built: function patterns first, then the codewords, then a mask and the format information.
struct Matrix {
    let version: Int
    let size: Int
    var dark: [Bool]
    /// Modules that belong to function patterns; data and masks leave them alone.
    var reserved: [Bool]

    init(version: Int) {
        self.version = version
        size = version * 4 + 17
        dark = Array(repeating: false, count: size * size)
        reserved = Array(repeating: false, count: size * size)
    }

    subscript(x: Int, y: Int) -> Bool {
        get { dark[y * size + x] }
        set { dark[y * size + x] = newValue }
    }

    private mutating func setFunction(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        reserved[y * size + x] = true
    }

    /// Row and column centres of the alignment patterns.
    static func alignmentPositions(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        let size = version * 4 + 17
        var positions = [6]
        var position = size - 7
        while positions.count < count {
            positions.insert(position, at: 1)
            position -= step
        }
        return positions
    }

    mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(6, index, index % 2 == 0)
            setFunction(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinder(x, y) }
        let positions = Self.alignmentPositions(version: version)
        let last = positions.count - 1
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated()
            where !((i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0)) {
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve the format areas now; their bits are written once the mask is chosen.
        drawFormat(bits: 0)
        drawVersion()
    }

    private mutating func drawFinder(_ centerX: Int, _ centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, distance != 2 && distance != 4)
            }
        }
    }

    /// The 15 format bits (level and mask, BCH-protected, XOR 0x5412) in both copies, and the dark module.
    mutating func drawFormat(bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(8, index, bit(index)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for index in 9..<15 { setFunction(14 - index, 8, bit(index)) }
        for index in 0..<8 { setFunction(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { setFunction(8, size - 15 + index, bit(index)) }
        setFunction(8, size - 8, true)
    }

    static func formatBits(level: QRCode.ErrorCorrection, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The 18 version bits (BCH 18,6) in both corners, from version 7 on.
    private mutating func drawVersion() {
        guard version >= 7 else { return }
        let bits = Self.versionBits(version)
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            setFunction(a, b, isDark)
            setFunction(b, a, isDark)
        }
    }

    static func versionBits(_ version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        return version << 12 | remainder
    }

    /// Places the codewords in the two-column zigzag from the bottom-right corner, skipping the timing column.
    mutating func place(_ codewords: [UInt8]) {
        var index = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !reserved[y * size + x], index < totalBits else { continue }
                    self[x, y] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    static func maskApplies(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// A copy with `mask` applied to the data modules and the matching format information drawn.
    func masked(_ mask: Int, level: QRCode.ErrorCorrection) -> Matrix {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] && Self.maskApplies(mask, x: x, y: y) {
                copy[x, y].toggle()
            }
        }
        copy.drawFormat(bits: Self.formatBits(level: level, mask: mask))
        return copy
    }

    /// The standard's penalty: long runs, 2×2 blocks, finder look-alikes, and an unbalanced dark share.
    var penalty: Int {
        var score = 0
        for line in 0..<size {
            score += Self.linePenalty((0..<size).map { self[$0, line] })
            score += Self.linePenalty((0..<size).map { self[line, $0] })
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let color = self[x, y]
                if color == self[x + 1, y] && color == self[x, y + 1] && color == self[x + 1, y + 1] { score += 3 }
            }
        }
        let darkCount = dark.filter { $0 }.count
        let total = size * size
        // k is how many 5 % steps the dark share is away from half.
        let k = (abs(darkCount * 20 - total * 10) + total - 1) / total - 1
        score += max(0, k) * 10
        return score
    }

    private static let finderLike: [[Bool]] = [
        [true, false, true, true, true, false, true, false, false, false, false],
        [false, false, false, false, true, false, true, true, true, false, true],
    ]

    static func linePenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runLength = 1
        for index in 1...line.count {
            if index < line.count && line[index] == line[index - 1] {
                runLength += 1
            } else {
                if runLength >= 5 { score += runLength - 2 }
                runLength = 1
            }
        }
        if line.count >= 11 {
            for start in 0...(line.count - 11)
            where finderLike.contains(where: { Array(line[start..<start + 11]) == $0 }) {
                score += 40
            }
        }
        return score
    }
}
