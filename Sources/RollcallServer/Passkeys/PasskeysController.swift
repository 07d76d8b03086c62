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
    let stores: Stores
    let configuration: Configuration

    /// Finds the challenge a client data answers and checks it is for this ceremony and person, still fresh and
    /// unused. It is used up only once the answer verified, so a refused answer changes nothing stored.
    func redeemableChallenge(
        _ clientData: [UInt8], purpose: ChallengePurpose, userID: Int64?, now: Date = Date()
    ) async throws -> (bytes: [UInt8], stored: PasskeyChallenge) {
        let bytes = try WebAuthn.challenge(inClientData: clientData)
        guard let stored = try await stores.passkeys.challenge(bytes), stored.purpose == purpose.rawValue,
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
            guard let passkey = try await stores.passkeys.find(credentialID: credential.id),
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
                relyingParty: configuration.relyingParty, requireUserVerification: true, stored: passkey.stored
            )
            guard try await stores.passkeys.consume(challenge.stored) else { throw PasskeyFailure.challengeUnknown }
            try await stores.passkeys.recordUse(passkey, assertion: assertion, now: now)
            return (passkey, assertion)
        } catch let error as PasskeyError {
            throw PasskeyFailure(error)
        }
    }
}

/// Passkeys: registering them, signing in with them, and the Devices list of one's own passkeys.
struct PasskeysController: Sendable {
    let stores: Stores
    let configuration: Configuration
    let accounts: AccountsController

    static let timeoutMilliseconds = 120_000

    var ceremony: PasskeyCeremony { PasskeyCeremony(stores: stores, configuration: configuration) }

    struct Registration: Decodable {
        var name: String?
        var credential: CredentialInput
    }
    struct SignIn: Decodable {
        var credential: CredentialInput
    }
    struct Rename: Decodable {
        var name: String
    }
    struct PolicyInput: Decodable {
        var required: Bool
        var reuseSeconds: Int?
    }
    struct PasskeyView: Codable, Sendable, Equatable {
        var id: Int64
        var name: String
        var algorithm: String
        /// Synced to other devices by the platform (iCloud Keychain, Google Password Manager…), or bound to one.
        var synced: Bool
        var backupEligible: Bool
        var createdAt: Date
        var lastUsedAt: Date?

        init(_ passkey: Passkey) {
            id = passkey.id
            name = passkey.name
            algorithm = COSEAlgorithm(rawValue: passkey.algorithm).map { "\($0)" } ?? "\(passkey.algorithm)"
            synced = passkey.backedUp
            backupEligible = passkey.backupEligible
            createdAt = passkey.createdAt
            lastUsedAt = passkey.lastUsedAt
        }
    }
    struct PasskeyEnvelope: Codable, ResponseEncodable {
        var passkey: PasskeyView
    }
    struct PasskeyList: Codable, ResponseEncodable {
        var passkeys: [PasskeyView]
    }
    struct PolicyEnvelope: Codable, ResponseEncodable {
        var verification: CourseVerification
    }

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.get("passkeys", use: list)
        api.post("passkeys/options", use: registrationOptions)
        api.post("passkeys", use: register)
        api.patch("passkeys/:passkeyID", use: rename)
        api.delete("passkeys/:passkeyID", use: remove)
        api.post("auth/passkey-options", use: signInOptions)
        api.post("auth/passkey-session", use: signInWeb)
        api.post("auth/passkey-tokens", use: signInAPI)
        api.get("courses/:courseID/verification", use: policy)
        api.put("courses/:courseID/verification", use: setPolicy)
    }

    // MARK: Registration

    /// Options for `navigator.credentials.create`: a discoverable passkey with user verification, attestation none.
    func creationOptions(for user: User) async throws -> [String: Any] {
        let party = configuration.relyingParty
        let challenge = try await stores.passkeys.issueChallenge(.registration, userID: user.id)
        let existing = try await stores.passkeys.list(userID: user.id)
        return [
            "publicKey": [
                "challenge": Base64URL.encode(challenge),
                "rp": ["id": party.id, "name": party.name],
                "user": [
                    "id": Base64URL.encode(PasskeyStore.userHandle(user.id)), "name": user.email,
                    "displayName": user.name,
                ],
                "pubKeyCredParams": COSEAlgorithm.allCases.map {
                    ["type": "public-key", "alg": $0.rawValue] as [String: Any]
                },
                "timeout": Self.timeoutMilliseconds,
                "attestation": "none",
                "authenticatorSelection": [
                    "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
                ] as [String: Any],
                "excludeCredentials": existing.map { ["type": "public-key", "id": $0.credentialId] },
            ] as [String: Any]
        ]
    }

    @Sendable func registrationOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try JSONResponse(try await creationOptions(for: user)).response(status: .ok)
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: Registration.self, context: context)
        let name = try check { () throws(RuleViolation) in try PasskeyRules.name(input.name ?? "Passkey") }
        let registered: RegisteredPasskey
        do {
            let clientData = try CredentialInput.bytes(input.credential.response.clientDataJSON)
            let object = try CredentialInput.bytes(input.credential.response.attestationObject)
            let challenge = try await ceremony.redeemableChallenge(clientData, purpose: .registration, userID: user.id)
            registered = try WebAuthn.verifyRegistration(
                clientDataJSON: clientData, attestationObject: object, challenge: challenge.bytes,
                relyingParty: configuration.relyingParty, requireUserVerification: true
            )
            guard Base64URL.encode(registered.credentialID) == input.credential.id else {
                throw PasskeyFailure(.malformed)
            }
            if try await stores.passkeys.find(credentialID: input.credential.id) != nil {
                throw AppError.conflict(
                    "passkey_already_registered", "This passkey is already registered with Rollcall.")
            }
            guard try await stores.passkeys.consume(challenge.stored) else { throw PasskeyFailure.challengeUnknown }
        } catch let failure as PasskeyFailure {
            throw failure.appError(.badRequest)
        } catch let error as PasskeyError {
            throw PasskeyFailure(error).appError(.badRequest)
        }
        let passkey = try await stores.passkeys.create(userID: user.id, registered: registered, name: name)
        return try PasskeyEnvelope(passkey: PasskeyView(passkey)).response(
            from: request, context: context, status: .created)
    }

    @Sendable func signInOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let challenge = try await stores.passkeys.issueChallenge(.signIn, userID: nil)
        let options: [String: Any] = [
            "publicKey": [
                "challenge": Base64URL.encode(challenge), "rpId": configuration.relyingParty.id,
                "timeout": Self.timeoutMilliseconds, "userVerification": "required", "allowCredentials": [Any](),
            ] as [String: Any]
        ]
        return try JSONResponse(options).response(status: .ok)
    }

    func signedInUser(_ request: Request, context: AppRequestContext) async throws -> User {
        let input = try await request.decodeJSON(as: SignIn.self, context: context)
        let passkey: Passkey
        let assertion: VerifiedAssertion
        do {
            (passkey, assertion) = try await ceremony.verifyAssertion(input.credential, purpose: .signIn, userID: nil)
        } catch let failure as PasskeyFailure {
            throw failure.appError(.unauthorized)
        }
        // A counter that went backwards means two copies of the passkey exist; the password still works.
        guard !assertion.counterRegressed else {
            throw AppError(
                .unauthorized, "passkey_counter_regressed",
                "This passkey's counter went backwards, a sign it may have been copied. Sign in with your password, "
                    + "then remove it on the Devices page and add it again."
            )
        }
        guard let user = try await stores.users.find(id: passkey.userId) else {
            throw PasskeyFailure(.unknownCredential).appError(.unauthorized)
        }
        guard !user.disabled else { throw AppError.accountDisabled }
        return user
    }

    @Sendable func signInWeb(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await signedInUser(request, context: context)
        return try await accounts.startWebSession(for: user, request: request, context: context)
    }

    @Sendable func signInAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await signedInUser(request, context: context)
        return try await accounts.issueAPIToken(for: user, request: request, context: context)
    }

    // MARK: Devices

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> PasskeyList {
        let user = try context.requireUser()
        return PasskeyList(passkeys: try await stores.passkeys.list(userID: user.id).map(PasskeyView.init))
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> PasskeyEnvelope {
        let user = try context.requireUser()
        let id = try context.id("passkeyID", "passkey")
        guard try await stores.passkeys.find(id: id, userID: user.id) != nil else { throw AppError.notFound("passkey") }
        let input = try await request.decodeJSON(as: Rename.self, context: context)
        let name = try check { () throws(RuleViolation) in try PasskeyRules.name(input.name) }
        try await stores.passkeys.rename(id: id, userID: user.id, name: name)
        guard let passkey = try await stores.passkeys.find(id: id, userID: user.id) else {
            throw AppError.notFound("passkey")
        }
        return PasskeyEnvelope(passkey: PasskeyView(passkey))
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.id("passkeyID", "passkey")
        guard try await stores.passkeys.find(id: id, userID: user.id) != nil else { throw AppError.notFound("passkey") }
        try await stores.passkeys.remove(id: id, userID: user.id)
        return Response(status: .noContent)
    }

    // MARK: Course setting

    @Sendable func policy(_ request: Request, context: AppRequestContext) async throws -> PolicyEnvelope {
        let user = try context.requireUser()
        let (course, _) = try await stores.course(try context.id("courseID", "course"), for: user)
        return PolicyEnvelope(verification: try await stores.passkeys.policy(courseID: course.id))
    }

    @Sendable func setPolicy(_ request: Request, context: AppRequestContext) async throws -> PolicyEnvelope {
        let user = try context.requireUser()
        let course = try await stores.managedCourse(try context.id("courseID", "course"), for: user)
        let input = try await request.decodeJSON(as: PolicyInput.self, context: context)
        let reuse = try check { () throws(RuleViolation) in try PasskeyRules.reuseSeconds(input.reuseSeconds ?? 0) }
        let policy = CourseVerification(required: input.required, reuseSeconds: reuse)
        try await stores.passkeys.setPolicy(courseID: course.id, policy)
        return PolicyEnvelope(verification: policy)
    }
}

/// A JSON answer built from dictionaries, for WebAuthn options whose shape the browser API fixes.
struct JSONResponse {
    var object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    func response(status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
