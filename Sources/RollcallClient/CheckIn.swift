import Foundation
import OpenAPIRuntime
import RollcallProtocol

/// Where the phone is, for sessions with a geofence.
public struct Location: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Metres (the radius of the 68 % confidence circle); over 100 m cannot place anyone in a room.
    public var accuracy: Double

    public init(latitude: Double, longitude: Double, accuracy: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
    }
}

/// A passkey challenge for a check-in, to answer with the platform's passkey API (Face ID, Touch ID, fingerprint).
public struct PasskeyChallenge: Sendable, Equatable {
    /// The challenge, base64url, as the server sent it.
    public var challenge: String
    /// The relying party's id (the server's host).
    public var relyingPartyID: String?
    /// The ids (base64url) of the student's registered passkeys.
    public var allowedCredentialIDs: [String]
    /// The whole `PublicKeyCredentialRequestOptions`, as the server sent them.
    public var options: JSONValue

    /// The challenge's bytes.
    public var challengeBytes: [UInt8] { Base64URL.decode(challenge) ?? [] }
}

/// What the passkey step of a check-in asks of the student.
public enum PasskeyStep: Sendable, Equatable {
    /// The course does not ask for a passkey.
    case notRequired
    /// A verification from this device is recent enough to be reused.
    case reused
    /// The course asks for a passkey and the student has none yet: register one first (the ticket stays valid).
    case registerFirst
    /// Answer this challenge with a passkey.
    case answer(PasskeyChallenge)
}

/// What the app supplies for each check-in: its device id, the phone's location and the passkey's answer.
public struct CheckInProof: Sendable {
    /// A stable id of this phone (8–128 letters, digits or dashes); one phone checks in one student per session.
    public var deviceID: String?
    /// Reads the phone's location, or `nil` where none is available (a session with a geofence then refuses).
    public var location: @Sendable () async throws -> Location?
    /// Answers a passkey challenge; called only when the course asks for one.
    public var passkey: @Sendable (PasskeyChallenge) async throws -> AssertionCredential
    /// The pseudo-IDs the phone heard in the last few minutes (`ProximityTracer.heardRecently`); the server keeps
    /// them only in sessions that count classmates' phones.
    public var heard: @Sendable () async -> [String]

    public init(
        deviceID: String? = nil, location: @escaping @Sendable () async throws -> Location? = { nil },
        passkey: @escaping @Sendable (PasskeyChallenge) async throws -> AssertionCredential = { _ in
            throw RollcallError(
                .verificationRequired,
                message: "This course asks for a passkey at check-in, and this app has none to offer.")
        },
        heard: @escaping @Sendable () async -> [String] = { [] }
    ) {
        self.heard = heard
        self.deviceID = deviceID
        self.location = location
        self.passkey = passkey
    }
}

extension Rollcall {
    /// The rotating code in a scanned link, `https://HOST/C/CODE` (or `/c/CODE`); `nil` for any other link.
    public static func code(inScannedLink link: String) -> String? {
        guard let url = URL(string: link) else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, parts[0] == "C" || parts[0] == "c", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    /// Records a scan of the projected code on this client's server, answering the ticket for `checkIn`.
    ///
    /// Refusals: `invalid_code` (not a code Rollcall projected), `code_expired` (scan the code on the screen again).
    public func scan(link: String) async throws -> Scan {
        guard let code = Self.code(inScannedLink: link) else {
            throw RollcallError(
                .invalidCode, message: "This is not a Rollcall check-in code: scan the code on the screen.")
        }
        return try await scan(code: code)
    }

    /// Records a scan of a rotating code.
    public func scan(code: String) async throws -> Scan {
        try await perform { try await root.scanCode(path: .init(code: code)).ok.body.json }
    }

    /// What proves presence at a check-in.
    public enum Presence: Sendable, Equatable {
        /// A scan's ticket (from the projected QR code).
        case ticket(String)
        /// The short code on the projector, typed (sessions that allow typing).
        case typed(sessionID: Int64, code: String)
        /// A check-in spot: the location alone, inside the session's fence and time.
        case spot(sessionID: Int64)
    }

    /// What the passkey step asks for this ticket.
    public func passkeyStep(ticket: String, deviceID: String?) async throws -> PasskeyStep {
        try await passkeyStep(for: .ticket(ticket), deviceID: deviceID)
    }

    /// What the passkey step asks for a check-in.
    public func passkeyStep(for presence: Presence, deviceID: String?) async throws -> PasskeyStep {
        var body = Operations.CheckInPasskeyOptions.Input.Body.JsonPayload(deviceId: deviceID)
        switch presence {
        case .ticket(let ticket): body.ticket = ticket
        case .typed(let sessionID, _), .spot(let sessionID): body.sessionId = sessionID
        }
        let answer = try await perform { try await api.checkInPasskeyOptions(body: .json(body)).ok.body.json }
        if !answer.required { return .notRequired }
        if answer.reuse == true { return .reused }
        if answer.hasPasskeys == false { return .registerFirst }
        guard let publicKey = answer.publicKey else {
            throw RollcallError.unexpectedAnswer(status: 200, "passkey options without publicKey")
        }
        let options = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(publicKey))
        guard let challenge = options["challenge"]?.string else {
            throw RollcallError.unexpectedAnswer(status: 200, "passkey options without a challenge")
        }
        var allowed: [String] = []
        if case .array(let credentials) = options["allowCredentials"] {
            allowed = credentials.compactMap { $0["id"]?.string }
        }
        return .answer(
            PasskeyChallenge(
                challenge: challenge, relyingPartyID: options["rpId"]?.string, allowedCredentialIDs: allowed,
                options: options))
    }

    /// Checks in with a scan's ticket: the passkey step when the course asks for one, the location, then the
    /// check-in itself. Repeating it answers the first result again (`new` false).
    public func checkIn(ticket: String, proof: CheckInProof) async throws -> CheckInResult {
        try await checkIn(.ticket(ticket), proof: proof)
    }

    /// Checks in with a ticket, a typed code or at a check-in spot: the passkey step when the course asks for one,
    /// the location, then the check-in itself.
    public func checkIn(_ presence: Presence, proof: CheckInProof) async throws -> CheckInResult {
        var assertion: AssertionCredential?
        let step: PasskeyStep
        do {
            step = try await passkeyStep(for: presence, deviceID: proof.deviceID)
        } catch let error as RollcallError where error.code == "forbidden" {
            // The passkey step refuses a student off the course with a plain `forbidden`; the check-in itself
            // names the reason with the policy's own code (`not_enrolled`), which is what the app shows.
            step = .notRequired
        }
        switch step {
        case .notRequired, .reused: break
        case .registerFirst:
            throw RollcallError(
                .verificationRequired,
                message: "This course asks for a passkey at check-in: register one on this phone first.")
        case .answer(let challenge): assertion = try await proof.passkey(challenge)
        }
        let location = try await proof.location()
        return try await checkIn(
            presence, deviceID: proof.deviceID, location: location, passkey: assertion, heard: await proof.heard())
    }

    /// Sends a check-in as it is, with a ticket and whatever proof the session needs.
    public func checkIn(
        ticket: String, deviceID: String? = nil, location: Location? = nil, passkey: AssertionCredential? = nil
    ) async throws -> CheckInResult {
        try await checkIn(.ticket(ticket), deviceID: deviceID, location: location, passkey: passkey)
    }

    /// Sends a check-in as it is, with whatever proof the session needs.
    public func checkIn(
        _ presence: Presence, deviceID: String? = nil, location: Location? = nil, passkey: AssertionCredential? = nil,
        heard: [String] = []
    ) async throws -> CheckInResult {
        var request = Components.Schemas.CheckInRequest(
            location: location.map { .init(latitude: $0.latitude, longitude: $0.longitude, accuracy: $0.accuracy) },
            deviceId: deviceID, passkey: passkey, heard: heard.isEmpty ? nil : heard)
        switch presence {
        case .ticket(let ticket): request.ticket = ticket
        case .typed(let sessionID, let code):
            request.sessionId = sessionID
            request.typedCode = code
        case .spot(let sessionID): request.sessionId = sessionID
        }
        return try await perform {
            switch try await api.checkIn(body: .json(request)) {
            case .created(let created): return try created.body.json
            case .ok(let repeated): return try repeated.body.json
            default: throw RollcallError.unexpectedAnswer(status: nil, "a check-in answered neither 200 nor 201")
            }
        }
    }

    /// The whole flow from a scanned link: scan, passkey, location, check-in.
    public func checkIn(scannedLink: String, proof: CheckInProof) async throws -> CheckInResult {
        let scan = try await scan(link: scannedLink)
        return try await checkIn(ticket: scan.ticket, proof: proof)
    }
}
