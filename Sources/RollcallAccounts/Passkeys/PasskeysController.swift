import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallProtocol
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Passkeys: registering them, signing in with them, and the Devices list of one's own passkeys.
struct PasskeysController: Sendable {
    let passkeys: PasskeyStore
    let users: UserStore
    let ceremony: PasskeyCeremony
    let signIns: SignIns
    let access: AccessRule
    let counters: AttemptCounters
    /// Who the passkeys are for: the site's name and host.
    let relyingParty: RelyingParty

    /// Anonymous sign-in challenges per client address a minute: a lecture hall signing in at once fits.
    static let signInOptionsLimit = RateLimit(limit: 600, window: 60)

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

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(PasskeyRoutes.passkeys, use: list)
        router.post(PasskeyRoutes.registrationOptions, use: registrationOptions)
        router.post(PasskeyRoutes.passkeys, use: register)
        router.patch(PasskeyRoutes.passkey, use: rename)
        router.delete(PasskeyRoutes.passkey, use: remove)
        router.post(PasskeyRoutes.signInOptions, use: signInOptions)
        router.post(PasskeyRoutes.webSession, use: signInWeb)
        router.post(PasskeyRoutes.tokens, use: signInAPI)
        router.get(PasskeyRoutes.courseVerification, use: policy)
        router.put(PasskeyRoutes.courseVerification, use: setPolicy)
    }

    // MARK: Registration

    /// Options for `navigator.credentials.create`: a discoverable passkey with user verification, attestation none.
    func creationOptions(for user: User) async throws -> [String: Any] {
        let party = relyingParty
        let challenge = try await passkeys.issueChallenge(.registration, userID: user.id)
        let existing = try await passkeys.list(userID: user.id)
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
                "timeout": PasskeyCeremony.timeoutMilliseconds,
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
                relyingParty: relyingParty, requireUserVerification: true
            )
            guard Base64URL.encode(registered.credentialID) == input.credential.id else {
                throw PasskeyFailure(.malformed)
            }
            if try await passkeys.find(credentialID: input.credential.id) != nil {
                throw AppError.conflict(
                    .passkeyAlreadyRegistered, "This passkey is already registered with Rollcall.")
            }
            guard try await passkeys.consume(challenge.stored) else { throw PasskeyFailure.challengeUnknown }
        } catch let failure as PasskeyFailure {
            throw failure.appError(.badRequest)
        } catch let error as PasskeyError {
            throw PasskeyFailure(error).appError(.badRequest)
        }
        let passkey = try await passkeys.create(userID: user.id, registered: registered, name: name)
        return try PasskeyEnvelope(passkey: PasskeyView(passkey)).response(
            from: request, context: context, status: .created)
    }

    @Sendable func signInOptions(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await counters.admit(
            .passkeyOptions, key: context.clientAddress ?? "-", under: Self.signInOptionsLimit,
            refusal: "Too many passkey sign-ins from this network just now. Wait a minute and try again.")
        let challenge = try await passkeys.issueChallenge(.signIn, userID: nil)
        let options: [String: Any] = [
            "publicKey": [
                "challenge": Base64URL.encode(challenge), "rpId": relyingParty.id,
                "timeout": PasskeyCeremony.timeoutMilliseconds, "userVerification": "required",
                "allowCredentials": [Any](),
            ] as [String: Any]
        ]
        return try JSONResponse(options).response(status: .ok)
    }

    func signedInUser(_ request: Request, context: AppRequestContext) async throws -> User {
        let input = try await request.decodeJSON(as: SignIn.self, context: context)
        let checked: CheckedAssertion
        do {
            checked = try await ceremony.check(input.credential, purpose: .signIn, userID: nil)
        } catch let failure as PasskeyFailure {
            throw failure.appError(.unauthorized)
        }
        // A counter that went backwards means two copies of the passkey exist; the password still works.
        guard !checked.assertion.counterRegressed else {
            throw AppError(
                .unauthorized, .passkeyCounterRegressed,
                "This passkey's counter went backwards, a sign it may have been copied. Sign in with your password, then remove it on the Devices page and add it again."
            )
        }
        guard let user = try await users.find(id: checked.passkey.userId) else {
            throw PasskeyFailure(.unknownCredential).appError(.unauthorized)
        }
        guard !user.disabled else { throw AppError.accountDisabled }
        try await signIns.requireSchoolSignIn(user)
        do {
            try await ceremony.redeem(checked)
        } catch let failure as PasskeyFailure {
            throw failure.appError(.unauthorized)
        }
        return user
    }

    @Sendable func signInWeb(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await signedInUser(request, context: context)
        return try await signIns.startWebSession(for: user, request: request, context: context)
    }

    @Sendable func signInAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await signedInUser(request, context: context)
        return try await signIns.issueAPIToken(for: user, request: request, context: context)
    }

    // MARK: Devices

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> PasskeyList {
        let user = try context.requireUser()
        return PasskeyList(passkeys: try await passkeys.list(userID: user.id).map(PasskeyView.init))
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> PasskeyEnvelope {
        let user = try context.requireUser()
        let id = try context.id("passkeyID", .passkeyNotFound, "passkey")
        guard try await passkeys.find(id: id, userID: user.id) != nil else {
            throw AppError.notFound(.passkeyNotFound, "passkey")
        }
        let input = try await request.decodeJSON(as: Rename.self, context: context)
        let name = try check { () throws(RuleViolation) in try PasskeyRules.name(input.name) }
        try await passkeys.rename(id: id, userID: user.id, name: name)
        guard let passkey = try await passkeys.find(id: id, userID: user.id) else {
            throw AppError.notFound(.passkeyNotFound, "passkey")
        }
        return PasskeyEnvelope(passkey: PasskeyView(passkey))
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.id("passkeyID", .passkeyNotFound, "passkey")
        guard try await passkeys.find(id: id, userID: user.id) != nil else {
            throw AppError.notFound(.passkeyNotFound, "passkey")
        }
        try await passkeys.remove(id: id, userID: user.id)
        return Response(status: .noContent)
    }

    // MARK: Course setting

    @Sendable func policy(_ request: Request, context: AppRequestContext) async throws -> PolicyEnvelope {
        let (course, _) = try await access.course(in: context)
        return PolicyEnvelope(verification: try await passkeys.policy(courseID: course.id))
    }

    @Sendable func setPolicy(_ request: Request, context: AppRequestContext) async throws -> PolicyEnvelope {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let input = try await request.decodeJSON(as: PolicyInput.self, context: context)
        let reuse = try check { () throws(RuleViolation) in try PasskeyRules.reuseSeconds(input.reuseSeconds ?? 0) }
        let policy = CourseVerification(required: input.required, reuseSeconds: reuse)
        try await passkeys.setPolicy(courseID: course.id, policy)
        return PolicyEnvelope(verification: policy)
    }
}
