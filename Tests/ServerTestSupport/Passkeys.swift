import Foundation
import PasskeyTestSupport
import RollcallCore
import RollcallModel
import RollcallProtocol
import Testing

@testable import RollcallServer

extension SoftwareAuthenticator {
    /// An authenticator for `account` on the test server's relying party (`http://localhost:8080`).
    public static func of(
        _ account: Account, _ kind: Kind = .p256, synced: Bool = false
    ) -> SoftwareAuthenticator {
        SoftwareAuthenticator(
            kind, userHandle: PasskeyStore.userHandle(account.id), backupEligible: synced, backedUp: synced,
            counts: !synced
        )
    }
}

extension Reply {
    /// The challenge of WebAuthn options in this answer.
    public var challenge: [UInt8] { Base64URL.decode(string("publicKey.challenge") ?? "") ?? [] }
}

extension API {
    /// Asks for registration options, answering the challenge.
    public func registrationChallenge(_ account: Account) async throws -> [UInt8] {
        let options = try await call(.post, "/api/v1/passkeys/options", as: account)
        #expect(options.status == .ok, "\(options.text)")
        return options.challenge
    }

    /// Registers the authenticator's passkey for `account` through the API.
    @discardableResult
    public func addPasskey(
        _ account: Account, _ authenticator: SoftwareAuthenticator, name: String = "My phone", format: String = "none"
    ) async throws -> Reply {
        let challenge = try await registrationChallenge(account)
        let reply = try await call(
            .post, "/api/v1/passkeys", as: account,
            json: ["name": name, "credential": authenticator.registrationJSON(challenge: challenge, format: format)]
        )
        #expect(reply.status == .created, "\(reply.text)")
        return reply
    }

    /// A sign-in challenge, as the sign-in page asks for one.
    public func signInChallenge() async throws -> [UInt8] {
        let options = try await call(.post, "/api/v1/auth/passkey-options")
        #expect(options.status == .ok, "\(options.text)")
        return options.challenge
    }

    /// Turns on passkey verification at check-in for a course.
    public func requireVerification(_ teacher: Account, courseID: Int64, reuseSeconds: Int = 0) async throws {
        let reply = try await call(
            .put, "/api/v1/courses/\(courseID)/verification", as: teacher,
            json: ["required": true, "reuseSeconds": reuseSeconds]
        )
        #expect(reply.status == .ok, "\(reply.text)")
    }

    /// Check-in options for a ticket, as the check-in page asks for them.
    public func checkInOptions(
        _ student: Account, ticket: String, deviceID: String = "phone-0001"
    ) async throws -> Reply {
        try await call(
            .post, "/api/v1/check-ins/passkey-options", as: student, json: ["ticket": ticket, "deviceId": deviceID]
        )
    }
}

/// A classroom whose course asks for a passkey at check-in, and a student with a registered passkey.
public struct VerifiedClassroom: Sendable {
    public var room: Classroom
    public var phone: SoftwareAuthenticator

    public static func open(_ api: API, reuseSeconds: Int = 0, synced: Bool = false) async throws -> VerifiedClassroom {
        let room = try await Classroom.open(api)
        try await api.requireVerification(room.teacher, courseID: room.courseID, reuseSeconds: reuseSeconds)
        let phone = SoftwareAuthenticator.of(room.student, synced: synced)
        try await api.addPasskey(room.student, phone)
        return VerifiedClassroom(room: room, phone: phone)
    }

    /// Scans, asks for check-in options and signs the challenge: the body the check-in page sends.
    public mutating func body(
        _ api: API, deviceID: String = "phone-0001", tweaks: SoftwareAuthenticator.Tweaks = .init()
    ) async throws -> [String: Any] {
        let ticket = try await room.scan(api)
        let options = try await api.checkInOptions(room.student, ticket: ticket, deviceID: deviceID)
        #expect(options.status == .ok, "\(options.text)")
        return [
            "ticket": ticket, "deviceId": deviceID,
            "passkey": phone.assertionJSON(challenge: options.challenge, tweaks: tweaks),
        ]
    }
}
