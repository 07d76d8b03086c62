/// Reed–Solomon error correction over GF(2⁸) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D).
enum ReedSolomon {
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var product: UInt16 = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            product ^= UInt16((y >> UInt8(bit)) & 1) * UInt16(x)
        }
        return UInt8(product & 0xFF)
    }

    /// The generator polynomial (x − α⁰)(x − α¹)…(x − α^(degree−1)), leading coefficient dropped.
    static func generator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The error-correction codewords for `data`: the remainder of data·x^n divided by the generator.
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(generator[index], factor) }
        }
        return result
    }

    /// Splits the data into the version's blocks, adds each block's error correction, and interleaves them.
    static func interleaved(_ data: [UInt8], version: Int, level: QRCode.ErrorCorrection) -> [UInt8] {
        let blockCount = Capacity.blocks[level]![version]
        let ecLength = Capacity.ecCodewordsPerBlock[level]![version]
        let total = Capacity.totalCodewords(version: version)
        let shortBlocks = blockCount - total % blockCount
        let shortLength = total / blockCount
        let divisor = generator(degree: ecLength)
        var blocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let dataLength = shortLength - ecLength + (index < shortBlocks ? 0 : 1)
            let chunk = Array(data[offset..<offset + dataLength])
            offset += dataLength
            // Short blocks get a placeholder so that every block has the same length while interleaving.
            let padded = index < shortBlocks ? chunk + [0] : chunk
            blocks.append(padded + remainder(chunk, generator: divisor))
        }
        var result: [UInt8] = []
        result.reserveCapacity(total)
        for column in 0..<(shortLength + 1) {
            for (index, block) in blocks.enumerated() where !(column == shortLength - ecLength && index < shortBlocks) {
                result.append(block[column])
            }
        }
        return result
    }
}
