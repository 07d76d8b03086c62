import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallProtocol
import RollcallWeb
import RollcallWords

/// The identity step of a check-in, where the course asks for it: a passkey assertion with user verification over a
/// challenge bound to the student's check-in ticket (or session), or a recent verification from the same device
/// within the course's reuse window.
struct CheckInVerification: Sendable {
    let passkeys: PasskeyStore
    let ceremony: PasskeyCeremony
    let tickets: ScanTickets
    let sessions: SessionStore
    let access: AccessRule

    struct OptionsRequest: Decodable {
        var ticket: String?
        var sessionId: Int64?
        var deviceId: String?
    }

    /// What the step found, for the policy, and the evidence `CheckInFollowUp` keeps if the check-in is accepted.
    struct Outcome: Sendable {
        var required: Bool
        var verification: Verification
        var evidence: IdentityEvidence?
        /// The passkey step that failed, for the refusal's details.
        var failedStep: String?
    }

    /// One passkey check-in as the teacher's API shows it.
    struct VerificationView: Codable, Sendable {
        var studentId: Int64
        var studentName: String
        var passkeyName: String?
        /// Synced (BS) passkeys live on every device of the student's account; the others on one device.
        var synced: Bool
        var backupEligible: Bool
        /// A verification made earlier from the same phone served, within the course's reuse window.
        var reused: Bool
        var deviceId: String?
        var verifiedAt: Date
    }
    struct VerificationList: Codable, ResponseEncodable {
        var verifications: [VerificationView]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(CheckInRoutes.passkeyOptions, use: options)
        router.get(CheckInRoutes.verifications, use: verifications)
    }

    /// The passkey verifications made at check-in in a session, newest first, for the course's teacher.
    @Sendable func verifications(_ request: Request, context: AppRequestContext) async throws -> VerificationList {
        let session = try await access.session(in: context, needing: .manage).session
        return VerificationList(
            verifications: try await passkeys.verifications(sessionID: session.id).map { record in
                VerificationView(
                    studentId: record.studentId, studentName: record.studentName, passkeyName: record.passkeyName,
                    synced: record.backedUp, backupEligible: record.backupEligible, reused: record.reused,
                    deviceId: record.deviceId, verifiedAt: record.createdAt
                )
            }
        )
    }

    /// What the check-in page must do before checking in: nothing, reuse a recent verification, register a first
    /// passkey, or ask for one with these options.
    @Sendable func options(_ request: Request, context: AppRequestContext) async throws -> Response {
        let student = try context.requireRole(.student, message: "Only students check in; teachers mark by hand.")
        let input = try await request.decodeJSON(as: OptionsRequest.self, context: context)
        let (session, ticketHash, expiresAt) = try await target(input, studentID: student.id)
        // Only the course's students are told how it checks identity, and only they get a challenge.
        _ = try await access.course(session.courseId, for: student)
        let policy = try await passkeys.policy(courseID: session.courseId)
        guard policy.required else { return try JSONResponse(["required": false]).response(status: .ok) }
        if let deviceID = input.deviceId, try await reusable(policy, studentID: student.id, deviceID: deviceID) != nil {
            return try JSONResponse(["required": true, "reuse": true]).response(status: .ok)
        }
        let registered = try await passkeys.list(userID: student.id)
        guard !registered.isEmpty else {
            return try JSONResponse(["required": true, "reuse": false, "hasPasskeys": false]).response(status: .ok)
        }
        let challenge = try await passkeys.issueChallenge(
            .checkIn, userID: student.id, sessionID: session.id, ticketHash: ticketHash, expiresAt: expiresAt
        )
        let options: [String: Any] = [
            "required": true, "reuse": false, "hasPasskeys": true,
            "publicKey": [
                "challenge": Base64URL.encode(challenge), "rpId": ceremony.relyingParty.id,
                "timeout": PasskeyCeremony.timeoutMilliseconds, "userVerification": "required",
                "allowCredentials": registered.map { ["type": "public-key", "id": $0.credentialId] },
            ] as [String: Any],
        ]
        return try JSONResponse(options).response(status: .ok)
    }

    /// The session a check-in challenge is for, the ticket it is bound to, and when it must be used by.
    func target(_ input: OptionsRequest, studentID: Int64) async throws -> (ClassSession, String?, Date?) {
        if let token = input.ticket {
            guard let ticket = try await tickets.read(token),
                let session = try await sessions.find(id: ticket.sessionId),
                ticket.studentId == nil || ticket.studentId == studentID
            else { throw CheckInRefusal(.invalidCode) }
            guard ticket.expiresAt > Date() else { throw CheckInRefusal(.codeExpired) }
            return (session, ticket.tokenHash, ticket.expiresAt)
        }
        guard let sessionID = input.sessionId else {
            throw AppError(.badRequest, .missingField, "Send the check-in ticket, or the session id.")
        }
        guard let session = try await sessions.find(id: sessionID) else {
            throw AppError.notFound(.sessionNotFound, "session")
        }
        return (session, nil, nil)
    }

    func reusable(
        _ policy: CourseVerification, studentID: Int64, deviceID: String, now: Date = Date()
    ) async throws -> CheckInVerificationRecord? {
        guard policy.reuseSeconds > 0,
            let last = try await passkeys.lastVerification(userID: studentID, deviceID: deviceID),
            PasskeyRules.mayReuse(verifiedAt: last.createdAt, now: now, windowSeconds: policy.reuseSeconds),
            try await passkeys.find(credentialID: last.credentialId)?.userId == studentID
        else { return nil }
        return last
    }

    /// The identity step for one check-in, decided without writing anything: the check-in may still be refused
    /// for another reason, and a refused check-in leaves the challenge usable and no evidence behind.
    func check(
        _ credential: CredentialInput?, session: ClassSession, student: User, ticket: String?, deviceID: String?,
        now: Date
    ) async throws -> Outcome {
        let policy = try await passkeys.policy(courseID: session.courseId, now: now)
        guard policy.required else { return Outcome(required: false, verification: .none) }
        guard let credential else {
            guard let deviceID,
                let last = try await reusable(policy, studentID: student.id, deviceID: deviceID, now: now)
            else { return Outcome(required: true, verification: .none) }
            return Outcome(required: true, verification: .verified, evidence: .reused(last))
        }
        let ticketHash = ticket.map(OpaqueToken.digest)
        do {
            let checked = try await ceremony.check(
                credential, purpose: .checkIn, userID: student.id,
                challengeFits: { challenge in
                    guard challenge.sessionId == session.id,
                        challenge.ticketHash == nil || challenge.ticketHash == ticketHash
                    else { throw PasskeyFailure.wrongChallenge }
                }, now: now
            )
            return Outcome(required: true, verification: .verified, evidence: .asserted(checked))
        } catch let failure as PasskeyFailure {
            return Outcome(required: true, verification: .failed, failedStep: failure.code.rawValue)
        }
    }
}
