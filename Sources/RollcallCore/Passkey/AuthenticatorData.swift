import Foundation
import RollcallProtocol

/// The authenticator data every WebAuthn answer carries: whose site, what the authenticator checked, its counter, and
/// at registration the new credential.
public struct AuthenticatorData: Sendable {
    /// SHA-256 of the RP ID the authenticator signed for.
    public var rpIDHash: [UInt8]
    public var flags: Flags
    public var signCount: UInt32
    /// Present at registration (the AT flag).
    public var attestedCredential: AttestedCredential?

    /// The flags byte (WebAuthn §6.1).
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// User present: someone touched or looked at the authenticator.
        public static let userPresent = Flags(rawValue: 0x01)
        /// User verified: fingerprint, face or PIN checked.
        public static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible: the credential may be synced to other devices.
        public static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up: the credential is synced now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// Extension data follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// A newly created credential: the authenticator model, the credential's id and its public key.
    public struct AttestedCredential: Sendable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        /// The COSE_Key bytes exactly as the authenticator sent them, for storage.
        public var publicKeyBytes: [UInt8]
        public var publicKey: COSEKey
    }

    /// WebAuthn caps credential ids at 1023 bytes.
    public static let maxCredentialIDLength = 1023

    /// Parses authenticator data, refusing anything short, long or inconsistent with its own flags.
    public init(bytes: [UInt8]) throws(PasskeyError) {
        guard bytes.count >= 37 else { throw .malformed }
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var index = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= index + 18 else { throw .malformed }
            let aaguid = Array(bytes[index..<index + 16])
            let length = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard length > 0, length <= Self.maxCredentialIDLength, bytes.count >= index + length else {
                throw .malformed
            }
            let credentialID = Array(bytes[index..<index + length])
            index += length
            let decoded: (CBOR, Int)
            do {
                decoded = try CBORDecoder(maxDepth: 2, maxLength: 1024).decodePrefix(bytes, from: index)
            } catch {
                throw .malformedKey
            }
            let keyBytes = Array(bytes[index..<decoded.1])
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: keyBytes, publicKey: try COSEKey(decoded.0)
            )
            index = decoded.1
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do {
                let (extensions, end) = try CBORDecoder(maxDepth: 4, maxLength: 1024).decodePrefix(bytes, from: index)
                guard extensions.entries != nil else { throw PasskeyError.malformed }
                index = end
            } catch {
                throw .malformed
            }
        }
        guard index == bytes.count else { throw .malformed }
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) { throw .inconsistentBackupState }
    }
}

/// The client data the browser signs over: the ceremony, the server's challenge and the page's origin.
public struct ClientData: Sendable {
    public var type: String
    public var challenge: [UInt8]
    public var origin: String
    public var crossOrigin: Bool

    private struct JSON: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
    }

    /// Parses clientDataJSON; the challenge is base64url without padding, as browsers write it.
    public init(json bytes: [UInt8]) throws(PasskeyError) {
        guard bytes.count <= 4096 else { throw .malformed }
        guard let decoded = try? JSONDecoder().decode(JSON.self, from: Data(bytes)),
            let challenge = Base64URL.decode(decoded.challenge)
        else { throw .malformed }
        type = decoded.type
        self.challenge = challenge
        origin = decoded.origin
        crossOrigin = decoded.crossOrigin ?? false
    }
}
