import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallWeb
import RollcallWords

extension Configuration {
    /// The WebAuthn relying party: the public URL's host is the RP ID, its scheme, host and port the one origin.
    package var relyingParty: RelyingParty {
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
package struct CredentialInput: Decodable, Sendable {
    package struct Response: Decodable, Sendable {
        package var clientDataJSON: String
        package var attestationObject: String?
        package var authenticatorData: String?
        package var signature: String?
        package var userHandle: String?

        package init(
            clientDataJSON: String, attestationObject: String? = nil, authenticatorData: String? = nil,
            signature: String? = nil, userHandle: String? = nil
        ) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    package var id: String
    package var type: String?
    package var response: Response

    /// Decodes one base64url field, refusing the answer as malformed when it is not base64url.
    package static func bytes(_ text: String?) throws -> [UInt8] {
        guard let text, let bytes = Base64URL.decode(text) else { throw PasskeyFailure(.malformed) }
        return bytes
    }
}

/// A refused passkey ceremony: a core error or a challenge problem, answered with its own code and sentence.
package struct PasskeyFailure: Error {
    package var code: ErrorCode
    package var message: Phrase

    package init(_ error: PasskeyError) {
        code = error.code
        message = error.message
    }

    package init(code: ErrorCode, message: Phrase) {
        self.code = code
        self.message = message
    }

    package static let challengeUnknown = PasskeyFailure(
        code: .passkeyChallengeUnknown,
        message: "This passkey request is unknown or was already used. Start again from the button.")
    package static let challengeExpired = PasskeyFailure(
        code: .passkeyChallengeExpired, message: "This passkey request took too long and expired. Start again.")
    package static let userHandleMissing = PasskeyFailure(
        code: .passkeyUserHandleMissing,
        message: "Your passkey did not say whose it is. Try again, or sign in with your password.")
    package static let wrongChallenge = PasskeyFailure(
        code: .passkeyWrongChallenge,
        message: "This passkey answer was made for another check-in. Start the check-in again.")

    package func appError(_ status: HTTPResponse.Status) -> AppError { AppError(status, code, message) }
}

/// The server's half of the passkey ceremonies: challenges found, checked and used up; assertions verified against
/// the registered passkey.
package struct PasskeyCeremony: Sendable {
    package let passkeys: PasskeyStore
    package let relyingParty: RelyingParty

    /// How long a browser waits for the person at a passkey prompt.
    package static let timeoutMilliseconds = 120_000

    /// Finds the challenge a client data answers and checks it is for this ceremony and person, still fresh and
    /// unused. It is used up only once the answer verified, so a refused answer changes nothing stored.
    package func redeemableChallenge(
        _ clientData: [UInt8], purpose: ChallengePurpose, userID: Int64?, now: Date = Date()
    ) async throws -> (bytes: [UInt8], stored: PasskeyChallenge) {
        let bytes = try WebAuthn.challenge(inClientData: clientData)
        guard let stored = try await passkeys.challenge(bytes), stored.purpose == purpose.rawValue,
            userID == nil || stored.userId == userID
        else { throw PasskeyFailure.challengeUnknown }
        guard stored.expiresAt > now else { throw PasskeyFailure.challengeExpired }
        return (bytes, stored)
    }

    /// Checks an assertion against its challenge and the registered passkey, and writes nothing: a refused answer,
    /// or one whose request is refused later for another reason, leaves the challenge usable and the counter where
    /// it was. `userID` is who must own the passkey; `nil` (sign-in) takes the owner the passkey names, and then the
    /// answer must name its user (WebAuthn §7.2: the request listed no credentials).
    package func check(
        _ credential: CredentialInput, purpose: ChallengePurpose, userID: Int64?,
        challengeFits: (PasskeyChallenge) throws -> Void = { _ in }, now: Date = Date()
    ) async throws -> CheckedAssertion {
        do {
            let clientData = try CredentialInput.bytes(credential.response.clientDataJSON)
            let authData = try CredentialInput.bytes(credential.response.authenticatorData)
            let signature = try CredentialInput.bytes(credential.response.signature)
            let challenge = try await redeemableChallenge(clientData, purpose: purpose, userID: userID, now: now)
            try challengeFits(challenge.stored)
            guard let passkey = try await passkeys.find(credentialID: credential.id),
                userID == nil || passkey.userId == userID
            else { throw PasskeyFailure(.unknownCredential) }
            if userID == nil && credential.response.userHandle == nil { throw PasskeyFailure.userHandleMissing }
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
            return CheckedAssertion(passkey: passkey, assertion: assertion, challenge: challenge.stored)
        } catch let error as PasskeyError {
            throw PasskeyFailure(error)
        }
    }

    /// Uses up a checked assertion's challenge and moves the passkey's counter on, once the request it came with is
    /// accepted; a challenge used meanwhile by another request refuses this one.
    package func redeem(_ checked: CheckedAssertion, now: Date = Date()) async throws {
        let redeemed = try await passkeys.database.transaction { sql in
            try await PasskeyStore.redeem(checked, now: now, in: sql)
        }
        guard redeemed else { throw PasskeyFailure.challengeUnknown }
    }
}
