import Foundation
import Hummingbird
import RollcallCore

extension Configuration {
    /// The WebAuthn relying party: the public URL's host is the RP ID, its scheme, host and port the one origin.
    var relyingParty: RelyingParty {
        let url = URL(string: publicURL)
        let scheme = url?.scheme?.lowercased() ?? "http"
        let host = url?.host?.lowercased() ?? "localhost"
        let port = url?.port.flatMap { port in
            (scheme, port) == ("http", 80) || (scheme, port) == ("https", 443) ? nil : port
        }
        return RelyingParty(id: host, origin: "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")")
    }
}

/// A passkey's answer as the browser's `PublicKeyCredential.toJSON()` gives it, binary values in base64url.
struct CredentialInput: Decodable, Sendable {
    struct Response: Decodable, Sendable {
        var clientDataJSON: String
        var attestationObject: String?
        var authenticatorData: String?
        var signature: String?
        var userHandle: String?
    }
    var id: String
    var type: String?
    var response: Response

    /// Decodes one base64url field, refusing the answer as malformed when it is not base64url.
    static func bytes(_ text: String?) throws -> [UInt8] {
        guard let text, let bytes = Base64URL.decode(text) else { throw PasskeyFailure(.malformed) }
        return bytes
    }
}

/// A refused passkey ceremony: a core error or a challenge problem, answered with its own code and sentence.
struct PasskeyFailure: Error {
    var code: String
    var message: String

    init(_ error: PasskeyError) {
        code = error.code
        message = error.message
    }

    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    static let challengeUnknown = PasskeyFailure(
        code: "passkey_challenge_unknown",
        message: "This passkey request is unknown or was already used. Start again from the button.")
    static let challengeExpired = PasskeyFailure(
        code: "passkey_challenge_expired", message: "This passkey request took too long and expired. Start again.")

    func appError(_ status: HTTPResponse.Status) -> AppError { AppError(status, code, message) }
}

/// The server's half of the passkey ceremonies: challenges found, checked and used up; assertions verified against
/// the registered passkey.
struct PasskeyCeremony: Sendable {
    let passkeys: PasskeyStore
    let relyingParty: RelyingParty

    /// Finds the challenge a client data answers and checks it is for this ceremony and person, still fresh and
    /// unused. It is used up only once the answer verified, so a refused answer changes nothing stored.
    func redeemableChallenge(
        _ clientData: [UInt8], purpose: ChallengePurpose, userID: Int64?, now: Date = Date()
    ) async throws -> (bytes: [UInt8], stored: PasskeyChallenge) {
        let bytes = try WebAuthn.challenge(inClientData: clientData)
        guard let stored = try await passkeys.challenge(bytes), stored.purpose == purpose.rawValue,
            userID == nil || stored.userId == userID
        else { throw PasskeyFailure.challengeUnknown }
        guard stored.expiresAt > now else { throw PasskeyFailure.challengeExpired }
        return (bytes, stored)
    }

    /// Checks an assertion against its challenge and the registered passkey, uses the challenge up and moves the
    /// counter on. `userID` is who must own the passkey; `nil` (sign-in) takes the owner the passkey names.
    func verifyAssertion(
        _ credential: CredentialInput, purpose: ChallengePurpose, userID: Int64?,
        check: (PasskeyChallenge) throws -> Void = { _ in }, now: Date = Date()
    ) async throws -> (Passkey, VerifiedAssertion) {
        do {
            let clientData = try CredentialInput.bytes(credential.response.clientDataJSON)
            let authData = try CredentialInput.bytes(credential.response.authenticatorData)
            let signature = try CredentialInput.bytes(credential.response.signature)
            let challenge = try await redeemableChallenge(clientData, purpose: purpose, userID: userID, now: now)
            try check(challenge.stored)
            guard let passkey = try await passkeys.find(credentialID: credential.id),
                userID == nil || passkey.userId == userID
            else { throw PasskeyFailure(.unknownCredential) }
            if let handle = credential.response.userHandle {
                guard PasskeyStore.userID(handle: try CredentialInput.bytes(handle)) == passkey.userId else {
                    throw PasskeyFailure(.unknownCredential)
                }
            }
            let assertion = try WebAuthn.verifyAssertion(
                credentialID: try CredentialInput.bytes(credential.id), clientDataJSON: clientData,
                authenticatorData: authData, signature: signature, challenge: challenge.bytes,
                relyingParty: relyingParty, requireUserVerification: true, stored: passkey.stored
            )
            guard try await passkeys.consume(challenge.stored) else { throw PasskeyFailure.challengeUnknown }
            try await passkeys.recordUse(passkey, assertion: assertion, now: now)
            return (passkey, assertion)
        } catch let error as PasskeyError {
            throw PasskeyFailure(error)
        }
    }
}
