import Crypto
import Foundation
import PasskeyTestSupport
import RollcallProtocol
import Testing

@testable import RollcallCore

@Suite("WebAuthn", .timeLimit(.minutes(5)))
struct WebAuthnTests {
    static let party = RelyingParty(id: "localhost", origin: "http://localhost:8080")
    static let challenge: [UInt8] = Array(0..<32)

    static func register(
        _ authenticator: SoftwareAuthenticator, format: String = "none", tweaks: SoftwareAuthenticator.Tweaks = .init(),
        challenge: [UInt8] = challenge, requireUserVerification: Bool = true
    ) throws(PasskeyError) -> RegisteredPasskey {
        let answer = authenticator.register(challenge: challenge, format: format, tweaks: tweaks)
        return try WebAuthn.verifyRegistration(
            clientDataJSON: answer.clientDataJSON, attestationObject: answer.attestationObject,
            challenge: Self.challenge, relyingParty: party, requireUserVerification: requireUserVerification
        )
    }

    static func assert(
        _ authenticator: inout SoftwareAuthenticator, tweaks: SoftwareAuthenticator.Tweaks = .init(),
        challenge: [UInt8] = challenge, stored: StoredPasskey? = nil, credentialID: [UInt8]? = nil
    ) throws(PasskeyError) -> VerifiedAssertion {
        let stored = stored ?? authenticator.stored
        let answer = authenticator.assert(challenge: challenge, tweaks: tweaks)
        return try WebAuthn.verifyAssertion(
            credentialID: credentialID ?? authenticator.credentialID, clientDataJSON: answer.clientDataJSON,
            authenticatorData: answer.authenticatorData, signature: answer.signature, challenge: Self.challenge,
            relyingParty: party, requireUserVerification: true, stored: stored
        )
    }

    @Test(arguments: [SoftwareAuthenticator.Kind.p256, .ed25519, .rsa], ["none", "packed"])
    func registers_and_asserts_with_every_supported_algorithm(kind: SoftwareAuthenticator.Kind, format: String) throws {
        var authenticator = SoftwareAuthenticator(kind, backupEligible: true, backedUp: true)
        let registered = try Self.register(authenticator, format: format)
        #expect(registered.credentialID == authenticator.credentialID)
        #expect(registered.publicKey == authenticator.coseKey)
        #expect(registered.algorithm.rawValue == authenticator.algorithm)
        #expect(registered.attestationFormat == format)
        #expect(registered.userVerified && registered.backupEligible && registered.backedUp)
        let stored = authenticator.stored
        let first = try Self.assert(&authenticator, stored: stored)
        #expect(
            first
                == VerifiedAssertion(
                    signCount: 1, userVerified: true, backupEligible: true, backedUp: true, counterRegressed: false))
    }

    @Test func a_device_bound_passkey_reports_no_backup() throws {
        var authenticator = SoftwareAuthenticator()
        let registered = try Self.register(authenticator)
        #expect(!registered.backupEligible && !registered.backedUp)
        let assertion = try Self.assert(&authenticator)
        #expect(!assertion.backupEligible && !assertion.backedUp)
    }

    @Test func synced_passkeys_with_a_zero_counter_are_not_regressions() throws {
        var authenticator = SoftwareAuthenticator(backupEligible: true, backedUp: true, counts: false)
        let stored = authenticator.stored
        #expect(try !Self.assert(&authenticator, stored: stored).counterRegressed)
        #expect(try !Self.assert(&authenticator, stored: stored).counterRegressed)
    }

    @Test func a_counter_that_goes_backwards_is_reported_not_hidden() throws {
        var authenticator = SoftwareAuthenticator()
        var stored = authenticator.stored
        stored.signCount = 5
        var tweaks = SoftwareAuthenticator.Tweaks()
        tweaks.signCount = 5
        #expect(try Self.assert(&authenticator, tweaks: tweaks, stored: stored).counterRegressed)
        tweaks.signCount = 3
        let regressed = try Self.assert(&authenticator, tweaks: tweaks, stored: stored)
        #expect(regressed.counterRegressed && regressed.signCount == 3)
        tweaks.signCount = 6
        #expect(try !Self.assert(&authenticator, tweaks: tweaks, stored: stored).counterRegressed)
    }

    /// One way to fail one registration step, with the error it must give.
    enum RegistrationFault: String, CaseIterable, Sendable {
        case wrongChallenge, wrongType, wrongOrigin, crossOrigin, wrongRelyingParty, userNotPresent, userNotVerified,
            badSelfAttestation, certificateAttestation, otherFormat, backedUpWithoutEligibility, unsupportedAlgorithm,
            malformedKey, malformedObject, truncatedObject, notJSON

        var error: PasskeyError {
            switch self {
            case .wrongChallenge: .wrongChallenge
            case .wrongType: .wrongType
            case .wrongOrigin, .crossOrigin: .wrongOrigin
            case .wrongRelyingParty: .wrongRelyingParty
            case .userNotPresent: .userNotPresent
            case .userNotVerified: .userNotVerified
            case .badSelfAttestation: .badSignature
            case .certificateAttestation, .otherFormat: .unsupportedAttestation
            case .backedUpWithoutEligibility: .inconsistentBackupState
            case .unsupportedAlgorithm: .unsupportedAlgorithm
            case .malformedKey: .malformedKey
            case .malformedObject, .truncatedObject, .notJSON: .malformed
            }
        }
    }

    @Test(arguments: RegistrationFault.allCases)
    func each_registration_step_refuses_its_fault(_ fault: RegistrationFault) throws {
        let authenticator = SoftwareAuthenticator()
        var tweaks = SoftwareAuthenticator.Tweaks()
        var challenge = Self.challenge
        var format = "packed"
        var clientData: [UInt8]?
        var object: [UInt8]?
        switch fault {
        case .wrongChallenge: challenge = Array(repeating: 9, count: 32)
        case .wrongType: tweaks.type = "webauthn.get"
        case .wrongOrigin: tweaks.origin = "http://localhost:8081"
        case .crossOrigin: tweaks.crossOrigin = true
        case .wrongRelyingParty: tweaks.rpID = "evil.example"
        case .userNotPresent: tweaks.userPresent = false
        case .userNotVerified: tweaks.userVerified = false
        case .badSelfAttestation: tweaks.corruptSignature = true
        case .certificateAttestation:
            let answer = authenticator.register(challenge: challenge, format: "packed")
            var entries = try #require(
                try CBORDecoder().decode(answer.attestationObject).entries, "the attestation object is a map")
            let index = try #require(entries.firstIndex { $0.key.text == "attStmt" }, "it has an attStmt")
            var statement = try #require(entries[index].value.entries, "the attestation statement is a map")
            statement.append((.text("x5c"), .array([.bytes([0x30, 0x00])])))
            entries[index].value = .map(statement)
            object = CBORWriter.encode(.map(entries))
        case .otherFormat: format = "fido-u2f"
        case .backedUpWithoutEligibility:
            tweaks.backedUp = true
            tweaks.backupEligible = false
        case .unsupportedAlgorithm, .malformedKey:
            var entries = try #require(authenticator.coseKeyItem.entries, "the COSE key is a map")
            if fault == .unsupportedAlgorithm {
                let algorithm = try #require(entries.firstIndex { $0.key.int == 3 }, "the key names its algorithm")
                entries[algorithm].value = CBORWriter.int(-35)
            } else {
                let x = try #require(entries.firstIndex { $0.key.int == -2 }, "the P-256 key has an x coordinate")
                entries[x].value = .bytes([1, 2, 3])
            }
            let answer = authenticator.register(
                challenge: challenge, format: "none", coseKey: CBORWriter.encode(.map(entries)))
            object = answer.attestationObject
        case .malformedObject: object = CBORWriter.encode(.array([.text("fmt"), .text("none")]))
        case .truncatedObject:
            let whole = authenticator.register(challenge: challenge).attestationObject
            object = Array(whole.dropLast(3))
        case .notJSON: clientData = Array("{\"type\":".utf8)
        }
        let answer = authenticator.register(challenge: challenge, format: format, tweaks: tweaks)
        #expect(throws: fault.error) {
            try WebAuthn.verifyRegistration(
                clientDataJSON: clientData ?? answer.clientDataJSON,
                attestationObject: object ?? answer.attestationObject,
                challenge: Self.challenge, relyingParty: Self.party, requireUserVerification: true
            )
        }
    }

    @Test func user_verification_is_required_only_where_asked() throws {
        var tweaks = SoftwareAuthenticator.Tweaks()
        tweaks.userVerified = false
        let registered = try Self.register(SoftwareAuthenticator(), tweaks: tweaks, requireUserVerification: false)
        #expect(!registered.userVerified)
    }

    /// One way to fail one assertion step, with the error it must give.
    enum AssertionFault: String, CaseIterable, Sendable {
        case wrongChallenge, wrongType, wrongOrigin, wrongRelyingParty, userNotPresent, userNotVerified, badSignature,
            signatureByAnotherKey, unknownCredential, eligibilityChanged, attestedDataInAssertion, truncatedAuthData,
            trailingAuthData, storedKeyMalformed, storedKeyUnsupported, notBase64Challenge

        var error: PasskeyError {
            switch self {
            case .wrongChallenge: .wrongChallenge
            case .wrongType: .wrongType
            case .wrongOrigin: .wrongOrigin
            case .wrongRelyingParty: .wrongRelyingParty
            case .userNotPresent: .userNotPresent
            case .userNotVerified: .userNotVerified
            case .badSignature, .signatureByAnotherKey: .badSignature
            case .unknownCredential: .unknownCredential
            case .eligibilityChanged: .inconsistentBackupState
            case .attestedDataInAssertion, .truncatedAuthData, .trailingAuthData, .notBase64Challenge: .malformed
            case .storedKeyMalformed: .malformedKey
            case .storedKeyUnsupported: .unsupportedAlgorithm
            }
        }
    }

    @Test(arguments: AssertionFault.allCases)
    func each_assertion_step_refuses_its_fault(_ fault: AssertionFault) throws {
        var authenticator = SoftwareAuthenticator()
        var stored = authenticator.stored
        var tweaks = SoftwareAuthenticator.Tweaks()
        var challenge = Self.challenge
        var credentialID = authenticator.credentialID
        var answer: (clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8])?
        switch fault {
        case .wrongChallenge: challenge = Array(repeating: 9, count: 32)
        case .wrongType: tweaks.type = "webauthn.create"
        case .wrongOrigin: tweaks.origin = "https://rollcall.evil.example"
        case .wrongRelyingParty: tweaks.rpID = "localhost.evil.example"
        case .userNotPresent: tweaks.userPresent = false
        case .userNotVerified: tweaks.userVerified = false
        case .badSignature: tweaks.corruptSignature = true
        case .signatureByAnotherKey: stored.publicKey = SoftwareAuthenticator().coseKey
        case .unknownCredential: credentialID = SoftwareAuthenticator().credentialID
        case .eligibilityChanged: tweaks.backupEligible = true
        case .attestedDataInAssertion:
            let registration = authenticator.register(challenge: challenge)
            let object = try CBORDecoder().decode(registration.attestationObject)
            let authData = object["authData"]!.bytes!
            let clientData = authenticator.clientDataJSON(type: "webauthn.get", challenge: challenge, tweaks: tweaks)
            answer = (clientData, authData, authenticator.sign(authData + Array(SHA256.hash(data: clientData))))
        case .truncatedAuthData, .trailingAuthData:
            var signed = authenticator.assert(challenge: challenge)
            signed.authenticatorData =
                fault == .truncatedAuthData
                ? Array(signed.authenticatorData.prefix(36)) : signed.authenticatorData + [0]
            answer = signed
        case .storedKeyMalformed: stored.publicKey = [0xa1, 0x01]
        case .storedKeyUnsupported:
            stored.publicKey = CBORWriter.encode(
                .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), CBORWriter.int(-36))]))
        case .notBase64Challenge:
            var signed = authenticator.assert(challenge: challenge)
            signed.clientDataJSON = Array(
                "{\"type\":\"webauthn.get\",\"challenge\":\"AA==\",\"origin\":\"http://localhost:8080\"}".utf8)
            answer = signed
        }
        let signed = answer ?? authenticator.assert(challenge: challenge, tweaks: tweaks)
        #expect(throws: fault.error) {
            try WebAuthn.verifyAssertion(
                credentialID: credentialID, clientDataJSON: signed.clientDataJSON,
                authenticatorData: signed.authenticatorData, signature: signed.signature, challenge: Self.challenge,
                relyingParty: Self.party, requireUserVerification: true, stored: stored
            )
        }
    }

    @Test func every_error_has_a_stable_code_and_a_sentence() {
        for error in PasskeyError.allCases {
            #expect(error.code.rawValue.hasPrefix("passkey_") && error.code.rawValue == error.rawValue)
            #expect(error.message.description.hasSuffix(".") && error.message.description.count > 30)
        }
        #expect(Set(PasskeyError.allCases.map(\.code)).count == PasskeyError.allCases.count)
    }

    @Test func base64url_round_trips_and_refuses_other_alphabets() {
        var random = SeededRandom(seed: 1)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        for bad in ["AA==", "A+B/", "A", "AB CD", "ÄÄÄÄ"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
    }

    @Test func relying_party_hash_is_sha256_of_the_host() {
        #expect(Self.party.idHash == Array(SHA256.hash(data: Array("localhost".utf8))))
    }
}

@Suite("Passkey rules", .timeLimit(.minutes(5)))
struct PasskeyRulesTests {
    @Test func names_are_trimmed_and_bounded() throws {
        #expect(try PasskeyRules.name("  My phone ") == "My phone")
        #expect(try PasskeyRules.name(String(repeating: "x", count: 60)).count == 60)
        for bad in ["", "   ", String(repeating: "x", count: 61), "two\nlines"] {
            #expect(throws: RuleViolation.self) { try PasskeyRules.name(bad) }
        }
    }

    @Test func reuse_window_is_bounded_and_off_at_zero() throws {
        #expect(try PasskeyRules.reuseSeconds(0) == 0)
        #expect(try PasskeyRules.reuseSeconds(3600) == 3600)
        #expect(throws: RuleViolation.self) { try PasskeyRules.reuseSeconds(-1) }
        #expect(throws: RuleViolation.self) { try PasskeyRules.reuseSeconds(3601) }
    }

    @Test func a_verification_is_reused_only_strictly_inside_the_window() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(PasskeyRules.mayReuse(verifiedAt: now.addingTimeInterval(-299), now: now, windowSeconds: 300))
        #expect(!PasskeyRules.mayReuse(verifiedAt: now.addingTimeInterval(-300), now: now, windowSeconds: 300))
        #expect(!PasskeyRules.mayReuse(verifiedAt: now.addingTimeInterval(-1), now: now, windowSeconds: 0))
        #expect(!PasskeyRules.mayReuse(verifiedAt: nil, now: now, windowSeconds: 300))
        #expect(!PasskeyRules.mayReuse(verifiedAt: now.addingTimeInterval(5), now: now, windowSeconds: 300))
    }
}
