import Foundation
import HTTPTypes
import PasskeyTestSupport
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Passkeys", .timeLimit(.minutes(5)))
struct PasskeysTests {
    @Test func a_person_adds_lists_renames_and_removes_passkeys() async throws {
        try await withServer { api in
            let student = try await api.register("Pat Passkey")
            let options = try await api.call(.post, "/api/v1/passkeys/options", as: student)
            #expect(options.status == .ok)
            #expect(options.string("publicKey.rp.id") == "localhost")
            #expect(options.string("publicKey.user.id") == Base64URL.encode(PasskeyStore.userHandle(student.id)))
            #expect(options.string("publicKey.user.name") == student.email)
            #expect(options.string("publicKey.attestation") == "none")
            #expect(options.string("publicKey.authenticatorSelection.userVerification") == "required")
            #expect(options.string("publicKey.authenticatorSelection.residentKey") == "required")
            #expect(options.list("publicKey.pubKeyCredParams").compactMap { $0["alg"] as? Int } == [-7, -8, -257])
            #expect(options.challenge.count == 32)

            let phone = SoftwareAuthenticator.of(student)
            let added = try await api.addPasskey(student, phone, name: "  Pat's phone ")
            #expect(added.string("passkey.name") == "Pat's phone")
            #expect(added.value("passkey.synced") as? Bool == false)
            #expect(added.string("passkey.algorithm") == "es256")
            let laptop = SoftwareAuthenticator.of(student, .ed25519, synced: true)
            try await api.addPasskey(student, laptop, name: "Laptop")
            let again = try await api.call(.post, "/api/v1/passkeys/options", as: student)
            #expect(again.list("publicKey.excludeCredentials").count == 2)

            let list = try await api.call(.get, "/api/v1/passkeys", as: student)
            #expect(list.list("passkeys").map { $0["name"] as? String } == ["Pat's phone", "Laptop"])
            #expect(list.list("passkeys").map { $0["synced"] as? Bool } == [false, true])
            let id = try #require(added.int("passkey.id"))
            let renamed = try await api.call(
                .patch, "/api/v1/passkeys/\(id)", as: student, json: ["name": "Old phone"])
            #expect(renamed.status == .ok)
            #expect(renamed.string("passkey.name") == "Old phone")
            let removed = try await api.call(.delete, "/api/v1/passkeys/\(id)", as: student)
            #expect(removed.status == .noContent)
            #expect(try await api.call(.get, "/api/v1/passkeys", as: student).list("passkeys").count == 1)

            let page = try await api.call(.get, "/devices", as: student)
            #expect(page.status == .ok)
            #expect(page.text.contains("Laptop") && page.text.contains("Synced passkey"))
            #expect(!page.text.contains("Old phone"))
        }
    }

    @Test(arguments: [
        ("packed", SoftwareAuthenticator.Kind.p256), ("packed", .ed25519), ("packed", .rsa), ("none", .rsa),
    ])
    func every_algorithm_and_self_attestation_registers(format: String, kind: SoftwareAuthenticator.Kind) async throws {
        try await withServer { api in
            let student = try await api.register("Alg Orithm")
            let reply = try await api.addPasskey(student, SoftwareAuthenticator.of(student, kind), format: format)
            #expect(
                reply.string("passkey.algorithm") == ["p256": "es256", "ed25519": "edDSA", "rsa": "rs256"]["\(kind)"])
        }
    }

    /// One bad registration, with the refusal it must get.
    enum BadRegistration: String, CaseIterable, Sendable {
        case wrongOrigin, wrongRelyingParty, userNotPresent, userNotVerified, unknownChallenge, expiredChallenge,
            reusedChallenge, anotherPersonsChallenge, signInChallenge, malformedCBOR, notBase64, unsupportedAlgorithm,
            malformedKey, badSelfAttestation, mismatchedID, alreadyRegistered, badName, missingCredential

        var expected: (HTTPResponse.Status, String) {
            switch self {
            case .wrongOrigin: (.badRequest, "passkey_wrong_origin")
            case .wrongRelyingParty: (.badRequest, "passkey_wrong_relying_party")
            case .userNotPresent: (.badRequest, "passkey_user_not_present")
            case .userNotVerified: (.badRequest, "passkey_user_not_verified")
            case .unknownChallenge, .reusedChallenge, .anotherPersonsChallenge, .signInChallenge:
                (.badRequest, "passkey_challenge_unknown")
            case .expiredChallenge: (.badRequest, "passkey_challenge_expired")
            case .malformedCBOR, .notBase64, .mismatchedID: (.badRequest, "passkey_malformed")
            case .unsupportedAlgorithm: (.badRequest, "passkey_algorithm_unsupported")
            case .malformedKey: (.badRequest, "passkey_key_malformed")
            case .badSelfAttestation: (.badRequest, "passkey_bad_signature")
            case .alreadyRegistered: (.conflict, "passkey_already_registered")
            case .badName: (.badRequest, "invalid_name")
            case .missingCredential: (.badRequest, "missing_field")
            }
        }
    }

    @Test(arguments: BadRegistration.allCases)
    func bad_registrations_are_refused_and_change_nothing(_ bad: BadRegistration) async throws {
        try await withServer { api in
            let student = try await api.register("Reg Istrant")
            let authenticator = SoftwareAuthenticator.of(student)
            var challenge = try await api.registrationChallenge(student)
            var tweaks = SoftwareAuthenticator.Tweaks()
            var format = "none"
            var credential: [String: Any]?
            var name = "Phone"
            switch bad {
            case .wrongOrigin: tweaks.origin = "http://localhost:9999"
            case .wrongRelyingParty: tweaks.rpID = "rollcall.example"
            case .userNotPresent: tweaks.userPresent = false
            case .userNotVerified: tweaks.userVerified = false
            case .unknownChallenge: challenge = Array(repeating: 7, count: 32)
            case .expiredChallenge: try await api.execute("UPDATE passkey_challenges SET expires_at = expires_at - 301")
            case .reusedChallenge:
                try await api.call(
                    .post, "/api/v1/passkeys", as: student,
                    json: ["credential": SoftwareAuthenticator.of(student).registrationJSON(challenge: challenge)])
            case .anotherPersonsChallenge:
                challenge = try await api.registrationChallenge(try await api.register("Someone Else"))
            case .signInChallenge: challenge = try await api.signInChallenge()
            case .malformedCBOR, .notBase64, .mismatchedID:
                var json = authenticator.registrationJSON(challenge: challenge)
                var response = json["response"] as! [String: Any]
                switch bad {
                case .malformedCBOR: response["attestationObject"] = Base64URL.encode([0xa3, 0x63, 0x66, 0x6d])
                case .notBase64: response["clientDataJSON"] = "not base64url!"
                default: json["id"] = Base64URL.encode([1, 2, 3])
                }
                json["response"] = response
                credential = json
            case .unsupportedAlgorithm, .malformedKey:
                var entries = try #require(authenticator.coseKeyItem.entries, "the COSE key is a map")
                if bad == .unsupportedAlgorithm {
                    let algorithm = try #require(entries.firstIndex { $0.key.int == 3 }, "the key names its algorithm")
                    entries[algorithm].value = CBORWriter.int(-35)
                } else {
                    let y = try #require(entries.firstIndex { $0.key.int == -3 }, "the P-256 key has a y coordinate")
                    entries.remove(at: y)
                }
                let answer = authenticator.register(challenge: challenge, coseKey: CBORWriter.encode(.map(entries)))
                credential = [
                    "id": Base64URL.encode(authenticator.credentialID),
                    "response": [
                        "clientDataJSON": Base64URL.encode(answer.clientDataJSON),
                        "attestationObject": Base64URL.encode(answer.attestationObject),
                    ],
                ]
            case .badSelfAttestation:
                format = "packed"
                tweaks.corruptSignature = true
            case .alreadyRegistered:
                try await api.addPasskey(student, authenticator)
                challenge = try await api.registrationChallenge(student)
            case .badName: name = "   "
            case .missingCredential: credential = [:]
            }
            var body: [String: Any] = [
                "name": name,
                "credential": credential
                    ?? authenticator.registrationJSON(challenge: challenge, format: format, tweaks: tweaks),
            ]
            if bad == .missingCredential { body["credential"] = nil }
            try await api.expectRefused(
                .post, "/api/v1/passkeys", as: student, json: body, status: bad.expected.0, code: bad.expected.1
            )
        }
    }

    @Test func the_devices_routes_refuse_strangers_and_bad_input() async throws {
        try await withServer { api in
            let owner = try await api.register("Own Er")
            let other = try await api.register("Oth Er")
            let id = try #require(try await api.addPasskey(owner, SoftwareAuthenticator.of(owner)).int("passkey.id"))
            try await api.expectRefused(.get, "/api/v1/passkeys", status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .post, "/api/v1/passkeys/options", status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .post, "/api/v1/passkeys", json: ["credential": [:]], status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .patch, "/api/v1/passkeys/\(id)", as: other, json: ["name": "Mine now"], status: .notFound,
                code: "passkey_not_found")
            try await api.expectRefused(
                .delete, "/api/v1/passkeys/\(id)", as: other, status: .notFound, code: "passkey_not_found")
            try await api.expectRefused(
                .delete, "/api/v1/passkeys/nine", as: owner, status: .notFound, code: "passkey_not_found")
            try await api.expectRefused(
                .patch, "/api/v1/passkeys/\(id)", as: owner, json: ["name": String(repeating: "x", count: 61)],
                status: .badRequest, code: "invalid_name")
            try await api.expectRefused(
                .patch, "/api/v1/passkeys/\(id)", as: owner, json: ["name": 5], status: .badRequest,
                code: "wrong_type")
            try await api.expectRefused(
                .patch, "/api/v1/passkeys/\(id)", as: owner, raw: Array("name=x".utf8),
                contentType: "application/x-www-form-urlencoded", status: .unsupportedMediaType,
                code: "unsupported_media_type")
            #expect(try await api.call(.get, "/api/v1/passkeys", as: owner).list("passkeys").count == 1)
            #expect(try await api.call(.get, "/api/v1/passkeys", as: other).list("passkeys").isEmpty)
            let page = try await api.call(.get, "/devices")
            #expect(page.headers[.location] == "/sign-in?next=%2Fdevices", "\(page.status)")
            let signIn = try await api.call(.get, "/sign-in")
            #expect(signIn.text.contains("Sign in with a passkey"))
        }
    }

    @Test func a_passkey_signs_in_without_a_password_on_the_web_and_by_api() async throws {
        try await withServer { api in
            let student = try await api.register("Sign Inner")
            var phone = SoftwareAuthenticator.of(student)
            try await api.addPasskey(student, phone)

            let options = try await api.call(.post, "/api/v1/auth/passkey-options")
            #expect(options.string("publicKey.rpId") == "localhost")
            #expect(options.string("publicKey.userVerification") == "required")
            let web = try await api.call(
                .post, "/api/v1/auth/passkey-session",
                json: ["credential": phone.assertionJSON(challenge: options.challenge)])
            #expect(web.status == .ok, "\(web.text)")
            #expect(web.string("user.email") == student.email)
            #expect(web.string("csrfToken")?.isEmpty == false)
            let cookie = try #require(web.headers[.setCookie])
            #expect(cookie.hasPrefix("rollcall_session=") && cookie.contains("HttpOnly"))
            let me = try await api.call(
                .get, "/api/v1/me", headers: [.cookie: String(cookie.prefix { $0 != ";" })])
            #expect(me.string("user.email") == student.email)

            let token = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge())])
            #expect(token.status == .created)
            let bearer = Account(id: student.id, email: student.email, token: token.string("token") ?? "")
            #expect(try await api.call(.get, "/api/v1/me", as: bearer).string("user.email") == student.email)

            let stored = try await api.rows("SELECT sign_count, last_used_at FROM passkeys")
            #expect(stored.first?["sign_count"] == "2")
            #expect(stored.first?["last_used_at"] != nil)
        }
    }

    /// One bad passkey sign-in, with the refusal it must get.
    enum BadSignIn: String, CaseIterable, Sendable {
        case unknownCredential, unknownChallenge, reusedChallenge, expiredChallenge, registrationChallenge,
            badSignature, userNotVerified, userNotPresent, wrongOrigin, wrongRelyingParty, otherUsersHandle,
            malformedAuthData, missingSignature, missingUserHandle, counterRegressed

        var code: String {
            switch self {
            case .unknownCredential, .otherUsersHandle: "passkey_unknown"
            case .unknownChallenge, .reusedChallenge, .registrationChallenge: "passkey_challenge_unknown"
            case .expiredChallenge: "passkey_challenge_expired"
            case .badSignature: "passkey_bad_signature"
            case .userNotVerified: "passkey_user_not_verified"
            case .userNotPresent: "passkey_user_not_present"
            case .wrongOrigin: "passkey_wrong_origin"
            case .wrongRelyingParty: "passkey_wrong_relying_party"
            case .malformedAuthData, .missingSignature: "passkey_malformed"
            case .missingUserHandle: "passkey_user_handle_missing"
            case .counterRegressed: "passkey_counter_regressed"
            }
        }
    }

    @Test(arguments: BadSignIn.allCases)
    func bad_passkey_sign_ins_are_refused_and_change_nothing(_ bad: BadSignIn) async throws {
        try await withServer { api in
            let student = try await api.register("Sign Inner")
            var phone = SoftwareAuthenticator.of(student)
            try await api.addPasskey(student, phone)
            var challenge = try await api.signInChallenge()
            var tweaks = SoftwareAuthenticator.Tweaks()
            var credential: [String: Any]?
            switch bad {
            case .unknownCredential:
                var stranger = SoftwareAuthenticator.of(student)
                credential = stranger.assertionJSON(challenge: challenge)
            case .unknownChallenge: challenge = Array(repeating: 3, count: 32)
            case .reusedChallenge:
                let first = try await api.call(
                    .post, "/api/v1/auth/passkey-tokens",
                    json: ["credential": phone.assertionJSON(challenge: challenge)])
                #expect(first.status == .created)
            case .expiredChallenge: try await api.execute("UPDATE passkey_challenges SET expires_at = expires_at - 301")
            case .registrationChallenge: challenge = try await api.registrationChallenge(student)
            case .badSignature: tweaks.corruptSignature = true
            case .userNotVerified: tweaks.userVerified = false
            case .userNotPresent: tweaks.userPresent = false
            case .wrongOrigin: tweaks.origin = "https://localhost:8080"
            case .wrongRelyingParty: tweaks.rpID = "127.0.0.1"
            case .counterRegressed:
                // A sign-in that moves the counter to 10; the refused one below (4) must leave it, its time of last
                // use and its challenge as they are.
                var ahead = SoftwareAuthenticator.Tweaks()
                ahead.signCount = 10
                let first = try await api.call(
                    .post, "/api/v1/auth/passkey-tokens",
                    json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge(), tweaks: ahead)]
                )
                #expect(first.status == .created)
                tweaks.signCount = 4
            case .otherUsersHandle, .malformedAuthData, .missingSignature, .missingUserHandle:
                var json = phone.assertionJSON(challenge: challenge)
                var response = json["response"] as! [String: Any]
                switch bad {
                case .otherUsersHandle:
                    response["userHandle"] = Base64URL.encode(PasskeyStore.userHandle(student.id + 1))
                case .malformedAuthData: response["authenticatorData"] = Base64URL.encode([1, 2, 3])
                case .missingUserHandle: response["userHandle"] = nil
                default: response["signature"] = nil
                }
                json["response"] = response
                credential = json
            }
            let body = ["credential": credential ?? phone.assertionJSON(challenge: challenge, tweaks: tweaks)]
            try await api.expectRefused(
                .post, "/api/v1/auth/passkey-session", json: body, status: .unauthorized, code: bad.code)
        }
    }

    @Test func a_disabled_account_or_a_counter_gone_backwards_does_not_sign_in() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let student = try await api.register("Dis Abled")
            var phone = SoftwareAuthenticator.of(student)
            try await api.addPasskey(student, phone)
            var tweaks = SoftwareAuthenticator.Tweaks()
            tweaks.signCount = 10
            let ahead = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge(), tweaks: tweaks)])
            #expect(ahead.status == .created)
            tweaks.signCount = 4
            let copied = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge(), tweaks: tweaks)])
            #expect(copied.status == .unauthorized)
            #expect(copied.errorCode == "passkey_counter_regressed")
            #expect(try await api.rows("SELECT sign_count FROM passkeys").first?["sign_count"] == "10")

            _ = try await api.call(.post, "/api/v1/admin/users/\(student.id)/disable", as: admin)
            tweaks.signCount = 11
            let disabled = try await api.call(
                .post, "/api/v1/auth/passkey-session",
                json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge(), tweaks: tweaks)])
            #expect(disabled.status == .forbidden)
            #expect(disabled.errorCode == "account_disabled")
        }
    }
}

@Suite("Relying party", .timeLimit(.minutes(5)))
struct RelyingPartyTests {
    @Test(arguments: [
        ("http://localhost:8080", "localhost", "http://localhost:8080"),
        ("https://Rollcall.School.edu", "rollcall.school.edu", "https://rollcall.school.edu"),
        ("https://rollcall.school.edu:443", "rollcall.school.edu", "https://rollcall.school.edu"),
        ("http://rollcall.local:80", "rollcall.local", "http://rollcall.local"),
        ("https://rollcall.school.edu:8443", "rollcall.school.edu", "https://rollcall.school.edu:8443"),
    ])
    func rp_id_and_origin_come_from_the_public_url(url: String, id: String, origin: String) throws {
        let configuration = try Configuration.fromEnvironment(["ROLLCALL_PUBLIC_URL": url])
        #expect(configuration.relyingParty == RelyingParty(id: id, origin: origin))
    }
}
