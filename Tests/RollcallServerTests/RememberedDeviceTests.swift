import Foundation
import HTTPTypes
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A browser remembered after a texted-code sign-in: it signs in again without a code for 30 days, until forgotten.
@Suite("Remembered devices", .serialized, .timeLimit(.minutes(5)))
struct RememberedDeviceTests {
    static let phone = "+447700900123"

    /// Pia, with a confirmed number, and her browser remembered: her account and the device cookie.
    static func remembered(_ api: API) async throws -> (Account, String) {
        let pia = try await PhoneSignInTests.confirmedAccount(api, "Pia Phone", phone: phone)
        return (pia, try await api.rememberedDevice(pia, phone))
    }

    /// The session cookie a sign-in answer sets, as a `Cookie` header's value.
    static func sessionCookie(_ reply: Reply) throws -> String {
        let cookies = reply.headers[values: .setCookie].compactMap { $0.firstMatch(of: /^rollcall_session=([^;]+)/) }
        let value = try #require(cookies.first, "a session cookie").1
        return "rollcall_session=\(value)"
    }

    @Test func a_remembered_browser_signs_in_again_without_a_code() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let pia = try await PhoneSignInTests.confirmedAccount(api, "Pia Phone", phone: Self.phone)
            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": Self.phone])
            let plain = try await api.call(
                .post, "/api/v1/auth/phone-session",
                json: ["phone": Self.phone, "code": try await api.textedCode(to: Self.phone)])
            #expect(plain.status == .ok)
            #expect(
                !plain.headers[values: .setCookie].contains { $0.hasPrefix("rollcall_device=") },
                "not remembered unless asked")

            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": Self.phone])
            let asked = try await api.call(
                .post, "/api/v1/auth/phone-session",
                json: ["phone": Self.phone, "code": try await api.textedCode(to: Self.phone), "rememberDevice": true],
                headers: [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Safari/604.1"])
            #expect(asked.status == .ok, "\(asked.text)")
            let setCookie = try #require(asked.headers[values: .setCookie].first { $0.hasPrefix("rollcall_device=") })
            #expect(setCookie.contains("Max-Age=2592000"), "30 days: \(setCookie)")
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"), "\(setCookie)")
            let match = try #require(setCookie.firstMatch(of: /^rollcall_device=([^;]+)/))
            let cookie = "rollcall_device=\(match.1)"

            // Only a digest of the secret is kept.
            let secret = String(cookie.dropFirst("rollcall_device=".count).split(separator: ".")[0])
            let snapshot = try await api.snapshot()
            #expect(snapshot["remembered_devices"]?.count == 1)
            #expect(snapshot["remembered_devices"]?.allSatisfy { !$0.contains(secret) } == true)

            let texts = try await api.outbox().count
            let again = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie])
            #expect(again.status == .ok, "\(again.text)")
            #expect(again.string("user.email") == pia.email)
            #expect(
                try await api.call(.get, "/api/v1/me", headers: [.cookie: try Self.sessionCookie(again)]).status == .ok)
            #expect(try await api.outbox().count == texts, "no code was texted")

            let listed = try await api.call(.get, "/api/v1/me/remembered-devices", as: pia)
            let device = try #require(listed.list("devices").first)
            #expect(listed.list("devices").count == 1)
            #expect(device["name"] as? String == "Safari on iPhone")
            #expect(device["phone"] as? String == Self.phone)
            #expect(device["current"] as? Bool == false, "a request without the cookie is not from the device")
            #expect(device["lastUsedAt"] != nil, "it signed in without a code")
            let created = try #require(Date(isoText: device["createdAt"] as? String ?? ""))
            let expires = try #require(Date(isoText: device["expiresAt"] as? String ?? ""))
            #expect(abs(expires.timeIntervalSince(created) - 30 * 86_400) < 2)
            let fromDevice = try await api.call(
                .get, "/api/v1/me/remembered-devices", as: pia, headers: [.cookie: cookie])
            #expect(fromDevice.list("devices").first?["current"] as? Bool == true)

            let page = try await api.call(.get, "/sign-in", headers: [.cookie: cookie])
            #expect(page.text.contains("Continue as Pia Phone"))
            #expect(page.text.contains("••• 0123"), "the number, mostly hidden")
            #expect(!page.text.contains(Self.phone))
            #expect(!(try await api.call(.get, "/sign-in")).text.contains("Continue as"))

            let devices = try await api.call(.get, "/devices", headers: [.cookie: try Self.sessionCookie(again)])
            #expect(devices.text.contains("Safari on iPhone"))
        }
    }

    @Test func forgetting_a_device_signs_out_what_it_started_at_once() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (pia, cookie) = try await Self.remembered(api)
            let started = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie])
            let session = try Self.sessionCookie(started)
            #expect(try await api.call(.get, "/api/v1/me", headers: [.cookie: session]).status == .ok)

            let id = try #require(
                try await api.call(.get, "/api/v1/me/remembered-devices", as: pia).list("devices").first?["id"] as? Int)
            let forgotten = try await api.call(.delete, "/api/v1/me/remembered-devices/\(id)", as: pia)
            #expect(forgotten.status == .noContent, "\(forgotten.text)")

            #expect(try await api.call(.get, "/api/v1/me", headers: [.cookie: session]).status == .unauthorized)
            let refused = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie])
            #expect(refused.status == .unauthorized)
            #expect(refused.errorCode == "device_not_remembered")
            #expect(try await api.call(.get, "/api/v1/me", as: pia).status == .ok, "other sign-ins stay")
            #expect(!(try await api.call(.get, "/sign-in", headers: [.cookie: cookie])).text.contains("Continue as"))
            #expect(try await api.call(.get, "/api/v1/me/remembered-devices", as: pia).list("devices").isEmpty)
        }
    }

    @Test func the_browser_itself_can_forget_it_signed_in_or_not() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (pia, cookie) = try await Self.remembered(api)
            let session = try Self.sessionCookie(
                try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie]))
            let forgot = try await api.call(.delete, "/api/v1/auth/device", headers: [.cookie: cookie])
            #expect(forgot.status == .noContent)
            let cleared = try #require(forgot.headers[values: .setCookie].first { $0.hasPrefix("rollcall_device=") })
            #expect(cleared.hasPrefix("rollcall_device=;") && cleared.contains("Max-Age=0"), "\(cleared)")
            #expect(try await api.call(.get, "/api/v1/me", headers: [.cookie: session]).status == .unauthorized)
            #expect(
                try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: cookie]).status
                    == .unauthorized)
            #expect(try await api.call(.get, "/api/v1/me/remembered-devices", as: pia).list("devices").isEmpty)
        }
    }

    /// Signs in from the remembered browser: the session cookie it gets.
    static func continueOn(_ api: API, _ device: String) async throws -> String {
        let reply = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: device])
        #expect(reply.status == .ok, "\(reply.text)")
        return try sessionCookie(reply)
    }

    /// Whether a browser remembered with `device`, and the session it started, are both gone.
    static func forgotten(_ api: API, _ device: String, session: String) async throws -> Bool {
        let again = try await api.call(.post, "/api/v1/auth/device-session", headers: [.cookie: device])
        let signedIn = try await api.call(.get, "/api/v1/me", headers: [.cookie: session])
        return again.status == .unauthorized && signedIn.status == .unauthorized
    }

    static func devices(_ api: API, _ account: Account) async throws -> Int {
        try await api.call(.get, "/api/v1/me/remembered-devices", as: account).list("devices").count
    }

    @Test func a_new_or_removed_number_and_a_new_password_forget_every_device_and_its_sessions() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (pia, first) = try await Self.remembered(api)
            let firstSession = try await Self.continueOn(api, first)
            #expect(try await api.call(.delete, "/api/v1/me/phone", as: pia).status == .noContent)
            #expect(try await Self.forgotten(api, first, session: firstSession), "the number is gone")
            #expect(try await Self.devices(api, pia) == 0)

            try await api.confirmPhone(pia, "+447700900999")
            let second = try await api.rememberedDevice(pia, "+447700900999")
            let secondSession = try await Self.continueOn(api, second)
            let asked = try await api.call(.post, "/api/v1/me/phone", as: pia, json: ["phone": Self.phone])
            #expect(asked.status == .accepted)
            let confirmed = try await api.call(
                .post, "/api/v1/me/phone/confirm", as: pia,
                json: ["phone": Self.phone, "code": try await api.textedCode(to: Self.phone)])
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            #expect(try await Self.forgotten(api, second, session: secondSession), "remembered for the old number")
            #expect(try await Self.devices(api, pia) == 0)

            let third = try await api.rememberedDevice(pia, Self.phone)
            let thirdSession = try await Self.continueOn(api, third)
            let typed = try await api.call(.patch, "/api/v1/me", as: pia, json: ["phone": "+447700900555"])
            #expect(typed.status == .ok, "\(typed.text)")
            #expect(try await Self.forgotten(api, third, session: thirdSession), "another number typed in")

            try await api.confirmPhone(pia, Self.phone)
            let fourth = try await api.rememberedDevice(pia, Self.phone)
            let fourthSession = try await Self.continueOn(api, fourth)
            let changed = try await api.call(
                .put, "/api/v1/me/password", as: pia,
                json: ["currentPassword": API.password, "newPassword": "another good password"])
            #expect(changed.status == .noContent, "\(changed.text)")
            #expect(try await Self.forgotten(api, fourth, session: fourthSession), "a new password")
            #expect(try await Self.devices(api, pia) == 0)
        }
    }

    @Test func a_number_change_that_is_refused_forgets_nothing() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (pia, device) = try await Self.remembered(api)
            let taken = "+447700900777"
            let asked = try await api.call(.post, "/api/v1/me/phone", as: pia, json: ["phone": taken])
            #expect(asked.status == .accepted)
            let code = try await api.textedCode(to: taken)
            // Someone else proves the number first.
            try await api.confirmPhone(try await api.register("Oli Other"), taken)
            try await api.expectRefused(
                .post, "/api/v1/me/phone/confirm", as: pia, json: ["phone": taken, "code": code],
                status: .conflict, code: "phone_taken")
            #expect(try await Self.devices(api, pia) == 1)
            _ = try await Self.continueOn(api, device)
        }
    }

    @Test func a_forged_altered_or_expired_cookie_is_refused_and_changes_nothing() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (_, cookie) = try await Self.remembered(api)
            let value = String(cookie.dropFirst("rollcall_device=".count))
            let parts = value.split(separator: ".").map(String.init)
            let flipped = parts[1].first == "A" ? "B" + parts[1].dropFirst() : "A" + parts[1].dropFirst()
            let other = try await PhoneSignInTests.confirmedAccount(api, "Oli Other", phone: "+447700900321")
            let otherCookie = try await api.rememberedDevice(other, "+447700900321")
            let otherSignature = String(otherCookie.split(separator: ".")[1])
            for bad in [
                nil, "rollcall_device=", "rollcall_device=garbage", "rollcall_device=\(parts[0])",
                "rollcall_device=\(parts[0]).\(flipped)", "rollcall_device=\(parts[0]).\(otherSignature)",
                "rollcall_device=\(value).extra",
            ] as [String?] {
                try await api.expectRefused(
                    .post, "/api/v1/auth/device-session", headers: bad.map { [.cookie: $0] } ?? [:],
                    status: .unauthorized, code: "device_not_remembered")
            }

            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                try await database.write { sql in
                    try await sql.update("remembered_devices").set(
                        "expires_at", to: SQLBind(Date().addingTimeInterval(-1))
                    )
                    .run()
                }
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/device-session", headers: [.cookie: cookie], status: .unauthorized,
                code: "device_not_remembered")
        }
    }

    @Test func bad_input_is_refused_and_changes_nothing() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            let (pia, _) = try await Self.remembered(api)
            let id = try #require(
                try await api.call(.get, "/api/v1/me/remembered-devices", as: pia).list("devices").first?["id"] as? Int)
            let other = try await api.register("Oli Other")
            try await api.expectRefused(
                .delete, "/api/v1/me/remembered-devices/\(id)", as: other, status: .notFound,
                code: "remembered_device_not_found")
            for bad in ["abc", "0", "-1", "99999999999999999999"] {
                try await api.expectRefused(
                    .delete, "/api/v1/me/remembered-devices/\(bad)", as: pia, status: .notFound,
                    code: "remembered_device_not_found")
            }
            try await api.expectRefused(
                .delete, "/api/v1/me/remembered-devices/\(id)", status: .unauthorized, code: "not_signed_in")

            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": Self.phone])
            let code = try await api.textedCode(to: Self.phone)
            try await api.expectRefused(
                .post, "/api/v1/auth/phone-session",
                json: ["phone": Self.phone, "code": code, "rememberDevice": "yes"],
                status: .badRequest, code: "wrong_type")
            let before = try await api.snapshot()
            let nothing = try await api.call(
                .delete, "/api/v1/auth/device", headers: [.cookie: "rollcall_device=garbage.garbage"])
            #expect(nothing.status == .noContent)
            #expect(try await api.snapshot() == before, "nothing to forget")
        }
    }
}
