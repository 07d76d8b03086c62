import Crypto

/// Who Rollcall is to passkeys: the RP ID (the host name) and the one origin pages are served from.
public struct RelyingParty: Equatable, Sendable {
    /// The host name, such as `rollcall.school.edu` or `localhost`.
    public var id: String
    /// Scheme, host and port, such as `https://rollcall.school.edu`.
    public var origin: String
    /// The name authenticators show.
    public var name: String

    public init(id: String, origin: String, name: String = "Rollcall") {
        self.id = id
        self.origin = origin
        self.name = name
    }

    /// SHA-256 of the RP ID, as authenticator data carries it.
    public var idHash: [UInt8] { Array(SHA256.hash(data: Array(id.utf8))) }
}

/// A passkey as Rollcall stored it at registration, which later assertions are checked against.
public struct StoredPasskey: Equatable, Sendable {
    public var credentialID: [UInt8]
    /// COSE_Key bytes.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var backupEligible: Bool

    public init(credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
    }
}

/// A verified registration: what to store about the new passkey.
public struct RegisteredPasskey: Sendable {
    public var credentialID: [UInt8]
    public var publicKey: [UInt8]
    public var algorithm: COSEAlgorithm
    public var signCount: UInt32
    public var aaguid: [UInt8]
    public var userVerified: Bool
    public var backupEligible: Bool
    public var backedUp: Bool
    /// `none` or `packed`.
    public var attestationFormat: String
}

/// A verified assertion: what the authenticator said, and whether its counter went backwards.
public struct VerifiedAssertion: Equatable, Sendable {
    public var signCount: UInt32
    public var userVerified: Bool
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Both counters are in use and the new one is not above the stored one: the passkey may have been copied.
    public var counterRegressed: Bool
}

/// The WebAuthn Level 2 relying-party checks (§7.1 registration, §7.2 assertion) as pure functions over values.
/// Which challenge is current, and whether it was used or expired, is the server's to decide; it passes the
/// challenge it issued.
public enum WebAuthn {
    /// Verifies a registration answer (`navigator.credentials.create`), accepting attestation "none" and "packed"
    /// self-attestation.
    public static func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8], relyingParty: RelyingParty,
        requireUserVerification: Bool
    ) throws(PasskeyError) -> RegisteredPasskey {
        try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge, relyingParty: relyingParty)
        let object: CBOR
        do {
            object = try CBORDecoder(maxDepth: 4, maxLength: 16_384).decode(attestationObject)
        } catch {
            throw .malformed
        }
        guard let format = object["fmt"]?.text, let statement = object["attStmt"], statement.entries != nil,
            let authDataBytes = object["authData"]?.bytes
        else { throw .malformed }
        let authData = try AuthenticatorData(bytes: authDataBytes)
        try checkAuthenticatorData(
            authData, relyingParty: relyingParty, requireUserVerification: requireUserVerification)
        guard let credential = authData.attestedCredential else { throw .malformed }
        switch format {
        case "none":
            guard statement.entries?.isEmpty == true else { throw .malformed }
        case "packed":
            guard statement["x5c"] == nil, statement["ecdaaKeyId"] == nil else { throw .unsupportedAttestation }
            guard let alg = statement["alg"]?.int, let signature = statement["sig"]?.bytes else { throw .malformed }
            guard alg == credential.publicKey.algorithm.rawValue else { throw .badSignature }
            let signed = authDataBytes + Array(SHA256.hash(data: clientDataJSON))
            guard credential.publicKey.isValidSignature(signature, for: signed) else { throw .badSignature }
        default:
            throw .unsupportedAttestation
        }
        return RegisteredPasskey(
            credentialID: credential.credentialID, publicKey: credential.publicKeyBytes,
            algorithm: credential.publicKey.algorithm, signCount: authData.signCount, aaguid: credential.aaguid,
            userVerified: authData.flags.contains(.userVerified),
            backupEligible: authData.flags.contains(.backupEligible), backedUp: authData.flags.contains(.backedUp),
            attestationFormat: format
        )
    }

    /// Verifies an assertion (`navigator.credentials.get`) against the passkey the server found for `credentialID`.
    public static func verifyAssertion(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        challenge: [UInt8], relyingParty: RelyingParty, requireUserVerification: Bool, stored: StoredPasskey
    ) throws(PasskeyError) -> VerifiedAssertion {
        guard credentialID == stored.credentialID else { throw .unknownCredential }
        let key = try COSEKey(bytes: stored.publicKey)
        try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge, relyingParty: relyingParty)
        let authData = try AuthenticatorData(bytes: authenticatorData)
        guard authData.attestedCredential == nil else { throw .malformed }
        try checkAuthenticatorData(
            authData, relyingParty: relyingParty, requireUserVerification: requireUserVerification)
        guard authData.flags.contains(.backupEligible) == stored.backupEligible else {
            throw .inconsistentBackupState
        }
        let signed = authenticatorData + Array(SHA256.hash(data: clientDataJSON))
        guard key.isValidSignature(signature, for: signed) else { throw .badSignature }
        let counting = authData.signCount != 0 || stored.signCount != 0
        return VerifiedAssertion(
            signCount: authData.signCount, userVerified: authData.flags.contains(.userVerified),
            backupEligible: authData.flags.contains(.backupEligible), backedUp: authData.flags.contains(.backedUp),
            counterRegressed: counting && authData.signCount <= stored.signCount
        )
    }

    /// The challenge a client data names, so the server can find which challenge it answers.
    public static func challenge(inClientData clientDataJSON: [UInt8]) throws(PasskeyError) -> [UInt8] {
        try ClientData(json: clientDataJSON).challenge
    }

    static func checkClientData(
        _ json: [UInt8], type: String, challenge: [UInt8], relyingParty: RelyingParty
    ) throws(PasskeyError) {
        let clientData = try ClientData(json: json)
        guard clientData.type == type else { throw .wrongType }
        guard constantTimeEqual(clientData.challenge, challenge) else { throw .wrongChallenge }
        guard clientData.origin == relyingParty.origin, !clientData.crossOrigin else { throw .wrongOrigin }
    }

    static func checkAuthenticatorData(
        _ authData: AuthenticatorData, relyingParty: RelyingParty, requireUserVerification: Bool
    ) throws(PasskeyError) {
        guard constantTimeEqual(authData.rpIDHash, relyingParty.idHash) else { throw .wrongRelyingParty }
        guard authData.flags.contains(.userPresent) else { throw .userNotPresent }
        if requireUserVerification && !authData.flags.contains(.userVerified) { throw .userNotVerified }
    }
}
