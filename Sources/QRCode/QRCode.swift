/// A QR code symbol (ISO/IEC 18004, model 2): which modules are dark, for any text, version 1 to 40.
public struct QRCode: Sendable {
    /// How much of the symbol may be damaged and still read: about 7, 15, 25 and 30 %.
    public enum ErrorCorrection: String, CaseIterable, Sendable {
        case low, medium, quartile, high

        /// The two bits that name the level in the format information.
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    /// 1 … 40; the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    public let errorCorrection: ErrorCorrection
    /// The mask pattern (0 … 7) chosen for the lowest penalty.
    public let mask: Int
    /// Modules per side.
    public let size: Int
    private let modules: [Bool]

    /// Encodes `text` in the smallest version from `minimumVersion` that holds it at `errorCorrection`.
    public init(encoding text: String, errorCorrection: ErrorCorrection = .medium, minimumVersion: Int = 1) throws {
        try self.init(encoding: text, errorCorrection: errorCorrection, minimumVersion: minimumVersion, mask: nil)
    }

    /// `mask` forces a mask pattern, so tests can check that every pattern reads.
    init(encoding text: String, errorCorrection: ErrorCorrection, minimumVersion: Int, mask forcedMask: Int?) throws {
        guard (1...40).contains(minimumVersion) else { throw QRCodeError.invalidVersion(minimumVersion) }
        let segment = Segment(text)
        guard
            let version = (minimumVersion...40).first(where: {
                segment.bitLength(version: $0) <= Capacity.dataCodewords(version: $0, level: errorCorrection) * 8
            })
        else { throw QRCodeError.dataTooLong(length: text.utf8.count, errorCorrection: errorCorrection) }
        let data = segment.codewords(version: version, level: errorCorrection)
        let codewords = ReedSolomon.interleaved(data, version: version, level: errorCorrection)
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.place(codewords)
        let mask =
            forcedMask ?? (0..<8).min { a, b in
                matrix.masked(a, level: errorCorrection).penalty < matrix.masked(b, level: errorCorrection).penalty
            }!
        let finished = matrix.masked(mask, level: errorCorrection)
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = mask
        self.size = finished.size
        self.modules = finished.dark
    }

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }
}

/// Why a text could not become a QR code.
public enum QRCodeError: Error, Equatable, Sendable {
    /// The text does not fit even version 40 at this error-correction level.
    case dataTooLong(length: Int, errorCorrection: QRCode.ErrorCorrection)
    /// The minimum version asked for is not between 1 and 40.
    case invalidVersion(Int)
}
