import Crypto
import Foundation
import RollcallCore
import RollcallProtocol
import _CryptoExtras

/// Writes CBOR in the canonical form CTAP2 authenticators use, independently of Rollcall's decoder.
public enum CBORWriter {
    public static func encode(_ value: CBOR) -> [UInt8] {
        switch value {
        case .unsigned(let n): head(0, n)
        case .negative(let n): head(1, n)
        case .bytes(let bytes): head(2, UInt64(bytes.count)) + bytes
        case .text(let text): head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let items): head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let entries): head(5, UInt64(entries.count)) + entries.flatMap { encode($0.key) + encode($0.value) }
        case .bool(let flag): [flag ? 0xf5 : 0xf4]
        case .null: [0xf6]
        }
    }

    /// The initial byte and argument, in the shortest form.
    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24..<0x100: return [type | 24, UInt8(argument)]
        case 0x100..<0x1_0000: return [type | 25] + bigEndian(argument, 2)
        case 0x1_0000..<0x1_0000_0000: return [type | 26] + bigEndian(argument, 4)
        default: return [type | 27] + bigEndian(argument, 8)
        }
    }

    static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// An integer as CBOR, negative or not.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// A passkey authenticator in software: real keys, real signatures, and knobs to make each answer wrong in one way.
public struct SoftwareAuthenticator: Sendable {
    /// The kind of key the authenticator makes.
    public enum Kind: Sendable {
        case p256, ed25519, rsa
    }

    private enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    /// One answer made wrong on purpose; the defaults give a correct answer.
    public struct Tweaks: Sendable {
        public var type: String?
        public var origin: String?
        public var rpID: String?
        public var userPresent = true
        public var userVerified = true
        public var backupEligible: Bool?
        public var backedUp: Bool?
        public var signCount: UInt32?
        public var corruptSignature = false
        public var crossOrigin = false
        public init() {}
    }

    public let credentialID: [UInt8]
    public let userHandle: [UInt8]
    public var rpID: String
    public var origin: String
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Whether the counter goes up with each assertion; synced passkeys keep it at 0.
    public var counts: Bool
    private let key: Key

    public init(
        _ kind: Kind = .p256, rpID: String = "localhost", origin: String = "http://localhost:8080",
        userHandle: [UInt8] = Array("user-1".utf8), backupEligible: Bool = false, backedUp: Bool = false,
        counts: Bool = true
    ) {
        switch kind {
        case .p256: key = .p256(P256.Signing.PrivateKey())
        case .ed25519: key = .ed25519(Curve25519.Signing.PrivateKey())
        case .rsa: key = .rsa(try! _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
        var generator = SystemRandomNumberGenerator()
        credentialID = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.userHandle = userHandle
        self.rpID = rpID
        self.origin = origin
        self.signCount = 0
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.counts = counts
    }

    public var algorithm: Int {
        switch key {
        case .p256: -7
        case .ed25519: -8
        case .rsa: -257
        }
    }

    /// The public key as a COSE_Key map.
    public var coseKeyItem: CBOR {
        switch key {
        case .p256(let key):
            let raw = Array(key.publicKey.rawRepresentation)
            return .map([
                (.unsigned(1), .unsigned(2)), (.unsigned(3), CBORWriter.int(-7)), (CBORWriter.int(-1), .unsigned(1)),
                (CBORWriter.int(-2), .bytes(Array(raw[0..<32]))), (CBORWriter.int(-3), .bytes(Array(raw[32..<64]))),
            ])
        case .ed25519(let key):
            return .map([
                (.unsigned(1), .unsigned(1)), (.unsigned(3), CBORWriter.int(-8)), (CBORWriter.int(-1), .unsigned(6)),
                (CBORWriter.int(-2), .bytes(Array(key.publicKey.rawRepresentation))),
            ])
        case .rsa(let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return .map([
                (.unsigned(1), .unsigned(3)), (.unsigned(3), CBORWriter.int(-257)),
                (CBORWriter.int(-1), .bytes(Array(primitives.modulus))),
                (CBORWriter.int(-2), .bytes(Array(primitives.publicExponent))),
            ])
        }
    }

    public var coseKey: [UInt8] { CBORWriter.encode(coseKeyItem) }

    public func sign(_ data: [UInt8]) -> [UInt8] {
        switch key {
        case .p256(let key): Array(try! key.signature(for: data).derRepresentation)
        case .ed25519(let key): Array(try! key.signature(for: data))
        case .rsa(let key): Array(try! key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    public func clientDataJSON(type: String, challenge: [UInt8], tweaks: Tweaks) -> [UInt8] {
        let cross = tweaks.crossOrigin ? ",\"crossOrigin\":true" : ",\"crossOrigin\":false"
        return Array(
            ("{\"type\":\"\(tweaks.type ?? type)\",\"challenge\":\"\(Base64URL.encode(challenge))\","
                + "\"origin\":\"\(tweaks.origin ?? origin)\"\(cross)}").utf8
        )
    }

    public func authenticatorData(
        signCount: UInt32, tweaks: Tweaks, attestedKey: [UInt8]? = nil
    ) -> [UInt8] {
        var flags: UInt8 = 0
        if tweaks.userPresent { flags |= 0x01 }
        if tweaks.userVerified { flags |= 0x04 }
        if tweaks.backupEligible ?? backupEligible { flags |= 0x08 }
        if tweaks.backedUp ?? backedUp { flags |= 0x10 }
        if attestedKey != nil { flags |= 0x40 }
        var data = Array(SHA256.hash(data: Array((tweaks.rpID ?? rpID).utf8)))
        data.append(flags)
        data += CBORWriter.bigEndian(UInt64(signCount), 4)
        if let attestedKey {
            data += [UInt8](repeating: 0, count: 16)
            data += CBORWriter.bigEndian(UInt64(credentialID.count), 2)
            data += credentialID
            data += attestedKey
        }
        return data
    }

    /// `navigator.credentials.create`: the client data and the attestation object, "none" or "packed" (self).
    public func register(
        challenge: [UInt8], format: String = "none", tweaks: Tweaks = Tweaks(), coseKey: [UInt8]? = nil
    ) -> (clientDataJSON: [UInt8], attestationObject: [UInt8]) {
        let clientData = clientDataJSON(type: "webauthn.create", challenge: challenge, tweaks: tweaks)
        let authData = authenticatorData(
            signCount: tweaks.signCount ?? signCount, tweaks: tweaks, attestedKey: coseKey ?? self.coseKey)
        var statement: CBOR = .map([])
        if format == "packed" {
            var signature = sign(authData + Array(SHA256.hash(data: clientData)))
            if tweaks.corruptSignature { signature[signature.count / 2] ^= 0x01 }
            statement = .map([(.text("alg"), CBORWriter.int(algorithm)), (.text("sig"), .bytes(signature))])
        }
        let object: CBOR = .map([
            (.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData)),
        ])
        return (clientData, CBORWriter.encode(object))
    }

    /// `navigator.credentials.get`: the client data, authenticator data and signature; the counter moves on.
    public mutating func assert(
        challenge: [UInt8], tweaks: Tweaks = Tweaks()
    ) -> (clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8]) {
        if counts { signCount += 1 }
        let clientData = clientDataJSON(type: "webauthn.get", challenge: challenge, tweaks: tweaks)
        let authData = authenticatorData(signCount: tweaks.signCount ?? signCount, tweaks: tweaks)
        var signature = sign(authData + Array(SHA256.hash(data: clientData)))
        if tweaks.corruptSignature { signature[signature.count / 2] ^= 0x01 }
        return (clientData, authData, signature)
    }

    /// The stored form of this authenticator's passkey, as a server keeps it after registration.
    public var stored: StoredPasskey {
        StoredPasskey(
            credentialID: credentialID, publicKey: coseKey, signCount: signCount, backupEligible: backupEligible)
    }

    /// A registration as the browser's JSON (`PublicKeyCredential.toJSON()`), for the API.
    public func registrationJSON(challenge: [UInt8], format: String = "none", tweaks: Tweaks = Tweaks())
        -> [String: Any]
    {
        let answer = register(challenge: challenge, format: format, tweaks: tweaks)
        return [
            "id": Base64URL.encode(credentialID), "rawId": Base64URL.encode(credentialID), "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(answer.clientDataJSON),
                "attestationObject": Base64URL.encode(answer.attestationObject), "transports": ["internal"],
            ],
        ]
    }

    /// An assertion as the browser's JSON, for the API.
    public mutating func assertionJSON(challenge: [UInt8], tweaks: Tweaks = Tweaks()) -> [String: Any] {
        let answer = assert(challenge: challenge, tweaks: tweaks)
        return [
            "id": Base64URL.encode(credentialID), "rawId": Base64URL.encode(credentialID), "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(answer.clientDataJSON),
                "authenticatorData": Base64URL.encode(answer.authenticatorData),
                "signature": Base64URL.encode(answer.signature), "userHandle": Base64URL.encode(userHandle),
            ],
        ]
    }
}
