import RollcallProtocol

/// Why a passkey registration or assertion was refused; the raw value is the stable code clients see.
public enum PasskeyError: String, Error, CaseIterable, Sendable {
    /// The browser's answer is not in the form WebAuthn defines (CBOR, JSON, lengths, base64url).
    case malformed = "passkey_malformed"
    /// The public key is not a COSE key Rollcall can use.
    case malformedKey = "passkey_key_malformed"
    /// The key's algorithm is not ES256, EdDSA or RS256.
    case unsupportedAlgorithm = "passkey_algorithm_unsupported"
    /// An attestation other than "none" or "packed" self-attestation.
    case unsupportedAttestation = "passkey_attestation_unsupported"
    /// The client data is for another ceremony (`webauthn.create` where `webauthn.get` was due, or the reverse).
    case wrongType = "passkey_wrong_type"
    /// The signed challenge is not the one the server handed out.
    case wrongChallenge = "passkey_wrong_challenge"
    /// The page that asked for the passkey is not Rollcall's own address.
    case wrongOrigin = "passkey_wrong_origin"
    /// The authenticator signed for another site.
    case wrongRelyingParty = "passkey_wrong_relying_party"
    /// The authenticator did not see a person touch or look at it.
    case userNotPresent = "passkey_user_not_present"
    /// The authenticator did not check the person's fingerprint, face or PIN.
    case userNotVerified = "passkey_user_not_verified"
    /// The signature does not match the registered key.
    case badSignature = "passkey_bad_signature"
    /// The assertion names a passkey other than the one it is checked against, or another user.
    case unknownCredential = "passkey_unknown"
    /// The authenticator claims a backup state that cannot be (backed up without being eligible, or eligibility
    /// changed since registration).
    case inconsistentBackupState = "passkey_backup_state_invalid"

    /// The stable code, as clients see it (the same as the raw value).
    public var code: ErrorCode {
        switch self {
        case .malformed: .passkeyMalformed
        case .malformedKey: .passkeyKeyMalformed
        case .unsupportedAlgorithm: .passkeyAlgorithmUnsupported
        case .unsupportedAttestation: .passkeyAttestationUnsupported
        case .wrongType: .passkeyWrongType
        case .wrongChallenge: .passkeyWrongChallenge
        case .wrongOrigin: .passkeyWrongOrigin
        case .wrongRelyingParty: .passkeyWrongRelyingParty
        case .userNotPresent: .passkeyUserNotPresent
        case .userNotVerified: .passkeyUserNotVerified
        case .badSignature: .passkeyBadSignature
        case .unknownCredential: .passkeyUnknown
        case .inconsistentBackupState: .passkeyBackupStateInvalid
        }
    }

    /// The sentence a person reads: what happened and what to do next.
    public var message: Phrase {
        switch self {
        case .malformed, .malformedKey:
            "Your device's passkey answer could not be read. Try again, or use another device."
        case .unsupportedAlgorithm:
            "This passkey uses a kind of key Rollcall does not accept. Create a passkey with your phone or computer's built-in Face ID, Touch ID, Windows Hello or fingerprint."
        case .unsupportedAttestation:
            "This security key sends a certificate Rollcall does not check. Use your phone or computer's built-in passkey instead."
        case .wrongType, .wrongChallenge:
            "This passkey answer belongs to another request. Try again."
        case .wrongOrigin, .wrongRelyingParty:
            "This passkey answer was made for another website. Open Rollcall at its usual address and try again."
        case .userNotPresent:
            "Your device did not confirm that you were there. Try again and confirm when it asks."
        case .userNotVerified:
            "Your device did not check your fingerprint, face or screen lock. Try again and confirm when asked, or ask your teacher to mark you by hand."
        case .badSignature:
            "The passkey's signature is not valid. Try again; if it keeps failing, remove this passkey on the Devices page and add it again."
        case .unknownCredential:
            "This passkey is not registered with Rollcall for you. Sign in with your password and add it on the Devices page."
        case .inconsistentBackupState:
            "Your device reported this passkey's backup in a way that cannot be right. Remove it on the Devices page and add it again."
        }
    }
}
