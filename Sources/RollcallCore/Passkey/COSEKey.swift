import Crypto
import _CryptoExtras

/// The signature algorithms Rollcall accepts for passkeys, by their COSE numbers.
public enum COSEAlgorithm: Int, CaseIterable, Codable, Sendable {
    /// ECDSA with P-256 and SHA-256; every passkey platform supports it.
    case es256 = -7
    /// Ed25519.
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 (Windows Hello).
    case rs256 = -257
}

/// A passkey's public key, parsed from its COSE_Key encoding and ready to check signatures.
public struct COSEKey: Sendable {
    public let algorithm: COSEAlgorithm
    private let key: Key

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    private enum Label {
        static let kty = 1
        static let alg = 3
        static let crv = -1
        static let x = -2
        static let y = -3
        static let n = -1
        static let e = -2
    }

    /// Parses a COSE_Key from its CBOR bytes, exactly as stored.
    public init(bytes: [UInt8]) throws(PasskeyError) {
        let item: CBOR
        do {
            item = try CBORDecoder(maxDepth: 2, maxLength: 1024).decode(bytes)
        } catch {
            throw .malformedKey
        }
        try self.init(item)
    }

    /// Parses a COSE_Key that was already decoded, as inside authenticator data.
    public init(_ item: CBOR) throws(PasskeyError) {
        guard item.entries != nil, let kty = item[Label.kty]?.int, let alg = item[Label.alg]?.int else {
            throw .malformedKey
        }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm }
        self.algorithm = algorithm
        switch (algorithm, kty) {
        case (.es256, 2):
            guard item[Label.crv]?.int == 1, let x = item[Label.x]?.bytes, let y = item[Label.y]?.bytes,
                x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { throw .malformedKey }
            self.key = .p256(key)
        case (.edDSA, 1):
            guard item[Label.crv]?.int == 6, let x = item[Label.x]?.bytes, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw .malformedKey }
            self.key = .ed25519(key)
        case (.rs256, 3):
            guard let n = item[Label.n]?.bytes, let e = item[Label.e]?.bytes, !e.isEmpty, e.count <= 8,
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw .malformedKey }
            self.key = .rsa(key)
        default:
            throw .malformedKey
        }
    }

    /// Whether `signature` is this key's signature of `data`, in the encoding WebAuthn uses for the algorithm
    /// (DER for ECDSA, raw for Ed25519 and RSA).
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5
            )
        }
    }
}
