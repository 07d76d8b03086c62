import Foundation
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWords
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer

@Suite("Phone sign-in", .serialized, .timeLimit(.minutes(5)))
struct PhoneSignInTests {
    /// Confirms `phone` for a new account through the profile's code, as a person would.
    static func confirmedAccount(_ api: API, _ name: String, phone: String) async throws -> Account {
        let account = try await api.register(name)
        let asked = try await api.call(.post, "/api/v1/me/phone", as: account, json: ["phone": phone])
        #expect(asked.status == .accepted, "\(asked.text)")
        let number = try #require(asked.string("phone"))
        let confirmed = try await api.call(
            .post, "/api/v1/me/phone/confirm", as: account,
            json: ["phone": phone, "code": try await api.textedCode(to: number)])
        #expect(confirmed.status == .ok, "\(confirmed.text)")
        #expect(confirmed.value("user.phoneConfirmed") as? Bool == true)
        return account
    }

    /// GB numbers, and no wait between codes, so that a test may confirm a number and sign in with it at once.
    static func quick(_ configuration: inout Configuration) {
        configuration.defaultRegion = "GB"
        configuration.phoneCodeInterval = 0
    }

    @Test func a_confirmed_number_signs_in_with_a_texted_code_that_works_once() async throws {
        try await withServer(configure: Self.quick) { api in
            let pia = try await Self.confirmedAccount(api, "Pia Phone", phone: "07700 900123")
            let me = try await api.call(.get, "/api/v1/me", as: pia)
            #expect(me.string("user.phone") == "+447700900123", "stored in E.164")

            let asked = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+44 7700 900123"])
            #expect(asked.status == .accepted)
            #expect(asked.int("nextCodeIn") == 0)
            let text = try #require(try await api.outbox().first)
            #expect(text.channel == "sms")
            #expect(text.recipient == "+447700900123")
            #expect(
                text.body.hasSuffix(
                    " is your Rollcall sign-in code. It works for 5 minutes. Nobody from school will ask you for it."))
            let code = try await api.textedCode(to: "+447700900123")

            let web = try await api.call(
                .post, "/api/v1/auth/phone-session",
                json: ["phone": "07700900123", "code": "\(code.prefix(3)) \(code.suffix(3))"])
            #expect(web.status == .ok, "\(web.text)")
            #expect(web.headers[.setCookie]?.contains("rollcall_session=") == true)
            #expect(web.string("user.email") == "pia.phone@school.test")

            let again = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "07700900123", "code": code])
            #expect(again.status == .unauthorized, "a code works once")
            #expect(again.errorCode == "invalid_code")

            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "07700900123"])
            let token = try await api.call(
                .post, "/api/v1/auth/phone-tokens",
                json: ["phone": "07700900123", "code": try await api.textedCode(to: "+447700900123")])
            #expect(token.status == .created)
            let account = Account(id: pia.id, email: pia.email, token: try #require(token.string("token")))
            #expect(try await api.call(.get, "/api/v1/me", as: account).status == .ok)
        }
    }

    @Test func the_code_is_stored_only_as_a_keyed_hash_valid_five_minutes() async throws {
        try await withServer(configure: Self.quick) { api in
            _ = try await Self.confirmedAccount(api, "Hal Hash", phone: "+447700900124")
            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900124"])
            let code = try await api.textedCode(to: "+447700900124")
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                try await database.write { sql in
                    let row = try #require(try await sql.select().columns("*").from("phone_codes").first())
                    let hash = try row.decode(column: "code_hash", as: String.self)
                    #expect(!hash.contains(code))
                    #expect(Data(base64Encoded: hash)?.count == 32, "an HMAC-SHA256")
                    let lifetime = try row.decode(column: "expires_at", as: Date.self).timeIntervalSince(
                        try row.decode(column: "created_at", as: Date.self))
                    #expect(abs(lifetime - 300) < 1)
                    try await sql.update("phone_codes").set("expires_at", to: SQLBind(Date().addingTimeInterval(-1)))
                        .run()
                }
            }
            let late = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900124", "code": code])
            #expect(late.status == .unauthorized)
            #expect(late.errorCode == "invalid_code")
        }
    }

    @Test func five_wrong_tries_end_the_code() async throws {
        try await withServer(configure: Self.quick) { api in
            _ = try await Self.confirmedAccount(api, "Will Wrong", phone: "+447700900125")
            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900125"])
            let code = try await api.textedCode(to: "+447700900125")
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                let reply = try await api.call(
                    .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900125", "code": wrong])
                #expect(reply.status == .unauthorized)
                #expect(reply.errorCode == "invalid_code")
                #expect((reply.errorMessage ?? "").contains("ask for a new code"))
            }
            let right = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900125", "code": code])
            #expect(right.status == .unauthorized, "the code died with the fifth wrong try")
        }
    }

    @Test func four_wrong_tries_leave_the_code_working() async throws {
        try await withServer(configure: Self.quick) { api in
            _ = try await Self.confirmedAccount(api, "Fay Four", phone: "+447700900126")
            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900126"])
            let code = try await api.textedCode(to: "+447700900126")
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<4 {
                _ = try await api.call(
                    .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900126", "code": wrong])
            }
            let right = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900126", "code": code])
            #expect(right.status == .created)
        }
    }

    @Test func a_number_without_an_account_gets_the_same_answer_and_no_text() async throws {
        try await withServer(configure: Self.quick) { api in
            _ = try await Self.confirmedAccount(api, "Kai Known", phone: "+447700900127")
            let known = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900127"])
            let before = try await api.snapshot()
            let unknown = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900999"])
            #expect(try await api.snapshot() == before, "nothing stored and nothing texted")
            #expect(known.status == unknown.status)
            #expect(known.string("message") == unknown.string("message"))
            #expect(known.int("nextCodeIn") == unknown.int("nextCodeIn"))
            #expect(Set(known.json.keys) == Set(unknown.json.keys))
            let signIn = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900999", "code": "123456"])
            #expect(signIn.status == .unauthorized)
            #expect(signIn.errorCode == "invalid_code")
        }
    }

    @Test func a_second_code_within_thirty_seconds_is_refused_saying_when_for_any_number() async throws {
        try await withServer(configure: { $0.defaultRegion = "GB" }) { api in
            let pat = try await api.register("Pat Patient")
            let asks: [(path: String, phone: String, account: Account?)] = [
                ("/api/v1/me/phone", "+447700900128", pat), ("/api/v1/auth/phone-code", "+447700900128", nil),
                ("/api/v1/auth/phone-code", "+447700900998", nil),
            ]
            for ask in asks {
                let first = try await api.call(.post, ask.path, as: ask.account, json: ["phone": ask.phone])
                #expect(first.status == .accepted, "\(ask.path): \(first.text)")
                #expect(first.int("nextCodeIn") == 30)
                let soon = try await api.call(.post, ask.path, as: ask.account, json: ["phone": ask.phone])
                #expect(soon.status == .tooManyRequests)
                #expect(soon.errorCode == "too_many_attempts")
                let wait = Int(soon.headers[.retryAfter] ?? "") ?? 0
                #expect((1...30).contains(wait), "Retry-After says when")
                #expect(soon.errorMessage?.contains("in \(wait) second") == true, "\(soon.errorMessage ?? "")")
            }
        }
    }

    @Test func five_codes_an_hour_per_number_then_a_refusal() async throws {
        try await withServer(configure: Self.quick) { api in
            for _ in 0..<5 {
                #expect(
                    try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900129"]).status
                        == .accepted)
            }
            let sixth = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900129"])
            #expect(sixth.status == .tooManyRequests)
            #expect(sixth.errorMessage?.contains("five codes in the last hour") == true)
        }
    }

    @Test func a_number_another_account_confirmed_cannot_be_confirmed_again_nor_told_apart() async throws {
        try await withServer(configure: Self.quick) { api in
            // Setup: one number confirmed by its owner, one free.
            let owner = try await Self.confirmedAccount(api, "Ona Owner", phone: "+447700900130")
            let other = try await api.register("Ivo Intruder")

            // The calls under test: asking for a code to each, then confirming the taken one with its code.
            let taken = try await api.call(.post, "/api/v1/me/phone", as: other, json: ["phone": "07700 900130"])
            let free = try await api.call(.post, "/api/v1/me/phone", as: other, json: ["phone": "07700 900133"])
            let code = try await api.textedCode(to: "+447700900130")
            try await api.expectRefused(
                .post, "/api/v1/me/phone/confirm", as: other, json: ["phone": "+447700900130", "code": code],
                status: .conflict, code: "phone_taken")

            // Validation: the two answers cannot be told apart; only the code's holder learns of the conflict, and
            // the number stays its owner's.
            #expect(taken.status == .accepted && free.status == .accepted, "\(taken.text) \(free.text)")
            #expect(
                taken.string("message")?.replacingOccurrences(of: "+447700900130", with: "N")
                    == free.string("message")?.replacingOccurrences(of: "+447700900133", with: "N"))
            #expect(taken.int("nextCodeIn") == free.int("nextCodeIn"))
            #expect(try await api.call(.get, "/api/v1/me", as: owner).string("user.phone") == "+447700900130")
        }
    }

    @Test func asking_for_codes_counts_every_request_against_the_limit_whatever_the_number() async throws {
        try await withServer(configure: Self.quick) { api in
            _ = try await Self.confirmedAccount(api, "Ona Owner", phone: "+447700900130")
            // Setup: a prober who used up the address's hourly codes on free numbers.
            let prober = try await api.register("Pat Prober")
            var accepted = 0
            for number in 0...PhoneController.perAddress.limit {
                let phone = "+4477009002" + String(format: "%02d", number)
                let asked = try await api.call(.post, "/api/v1/me/phone", as: prober, json: ["phone": phone])
                guard asked.status == .accepted else { break }
                accepted += 1
            }
            #expect(accepted > 0 && accepted <= PhoneController.perAddress.limit, "\(accepted) codes before the limit")

            // The call under test: one more, for a number another account confirmed.
            let probe = try await api.call(.post, "/api/v1/me/phone", as: prober, json: ["phone": "+447700900130"])

            // Validation: refused by the limit like any other request, saying nothing of the number.
            #expect(probe.status == .tooManyRequests, "\(probe.text)")
            #expect(probe.errorCode == "too_many_attempts")
        }
    }

    @Test func removing_or_changing_the_number_ends_the_codes_texted_to_it() async throws {
        try await withServer(configure: Self.quick) { api in
            for change in ["removed", "changed"] {
                // Setup: a code texted to the confirmed number, then the number removed or replaced.
                let phone = change == "removed" ? "+447700900141" : "+447700900142"
                let owner = try await Self.confirmedAccount(api, "Ned \(change.capitalized)", phone: phone)
                #expect(
                    try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": phone]).status == .accepted)
                let code = try await api.textedCode(to: phone)
                let edited =
                    change == "removed"
                    ? try await api.call(.delete, "/api/v1/me/phone", as: owner)
                    : try await api.call(.patch, "/api/v1/me", as: owner, json: ["phone": "+447700900149"])
                #expect(edited.status == .noContent || edited.status == .ok, "\(edited.text)")

                // The call under test and its validation: the code texted before signs nobody in.
                let signIn = try await api.call(
                    .post, "/api/v1/auth/phone-tokens", json: ["phone": phone, "code": code])
                #expect(signIn.status == .unauthorized, "a code for a number \(change) since: \(signIn.text)")
                #expect(signIn.errorCode == "invalid_code")

                // A code whose request read the number just before it went, and was stored just after: still nobody.
                let late = try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing {
                    try await PhoneCodes(database: $0, keys: ServerKeys(database: $0))
                        .issue(.signIn, phone: phone, userID: owner.id)
                }
                let lateSignIn = try await api.call(
                    .post, "/api/v1/auth/phone-tokens", json: ["phone": phone, "code": late])
                #expect(
                    lateSignIn.errorCode == "invalid_code", "a late code for a number \(change): \(lateSignIn.text)")
            }
        }
    }

    @Test func a_number_typed_into_the_profile_is_not_confirmed_and_does_not_sign_in() async throws {
        try await withServer(configure: Self.quick) { api in
            let una = try await Self.confirmedAccount(api, "Una Unconfirmed", phone: "+447700900131")
            let changed = try await api.call(.patch, "/api/v1/me", as: una, json: ["phone": "07700 900132"])
            #expect(changed.string("user.phone") == "+447700900132")
            #expect(changed.value("user.phoneConfirmed") as? Bool == false)
            _ = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900132"])
            #expect(try await api.outbox().first { $0.channel == "sms" && $0.recipient == "+447700900132" } == nil)
            #expect(try await api.call(.delete, "/api/v1/me/phone", as: una).status == .noContent)
            #expect(try await api.call(.get, "/api/v1/me", as: una).string("user.phone") == nil)
        }
    }

    @Test func bad_input_is_refused_with_a_sentence_and_changes_nothing() async throws {
        try await withServer(configure: Self.quick) { api in
            let ben = try await api.register("Ben Bad")
            for path in ["/api/v1/auth/phone-code", "/api/v1/me/phone"] {
                for phone in ["", "call me", "+44 7700 9001x3", "+123", "07700 900123 4567 89"] {
                    try await api.expectRefused(
                        .post, path, as: ben, json: ["phone": phone], status: .badRequest, code: "invalid_phone")
                }
                try await api.expectRefused(.post, path, as: ben, json: [:], status: .badRequest, code: "missing_field")
                try await api.expectRefused(
                    .post, path, as: ben, json: ["phone": 447_700_900_123], status: .badRequest, code: "wrong_type")
            }
            for path in ["/api/v1/auth/phone-session", "/api/v1/auth/phone-tokens"] {
                try await api.expectRefused(
                    .post, path, json: ["phone": "not a phone", "code": "123456"], status: .badRequest,
                    code: "invalid_phone")
                for code in ["", "12345", "1234567", "12a456", "１２３４５６"] {
                    try await api.expectRefused(
                        .post, path, json: ["phone": "+447700900133", "code": code], status: .unauthorized,
                        code: "invalid_code")
                }
                try await api.expectRefused(
                    .post, path, json: ["phone": "+447700900133"], status: .badRequest, code: "missing_field")
            }
            try await api.expectRefused(
                .post, "/api/v1/me/phone/confirm", as: ben, json: ["phone": "+447700900133", "code": "12a456"],
                status: .badRequest, code: "invalid_code")
            try await api.expectRefused(
                .post, "/api/v1/me/phone", json: ["phone": "+447700900133"], status: .unauthorized,
                code: "not_signed_in")
        }
    }

    @Test func the_profile_shows_the_number_and_whether_it_signs_in() async throws {
        try await withServer(configure: Self.quick) { api in
            let web = { (account: Account) async throws -> String in
                try await api.call(.get, "/profile", as: account).text
            }
            let none = try await api.register("Noa None")
            let empty = try await web(none)
            #expect(empty.contains("Add your mobile number"))
            #expect(!empty.contains("Remove this number"), "nothing to remove without a number")
            let typed = try await api.register("Ty Typed")
            _ = try await api.call(.patch, "/api/v1/me", as: typed, json: ["phone": "07700 900140"])
            #expect(try await web(typed).contains("not confirmed"))
            let proved = try await Self.confirmedAccount(api, "Pru Proved", phone: "07700 900141")
            let page = try await web(proved)
            #expect(page.contains("<strong>+447700900141</strong>"))
            #expect(page.contains("you can sign in with it and a texted code"))
        }
    }

    @Test func a_national_number_needs_the_default_region() async throws {
        try await withServer { api in
            let nia = try await api.register("Nia National")
            let reply = try await api.call(.post, "/api/v1/me/phone", as: nia, json: ["phone": "07700 900123"])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "invalid_phone")
            #expect(reply.errorMessage?.contains("country code") == true)
        }
    }

    @Test func texts_go_to_the_sms_gateway_webhook_with_the_shared_secret_and_are_retried_when_it_fails() async throws {
        let gateway = try GatewayProcess(failFirst: 1)
        defer { gateway.stop() }
        try await withServer(configure: {
            Self.quick(&$0)
            $0.smsWebhook = URL(string: "http://127.0.0.1:\(gateway.port)/send")
            $0.smsWebhookSecret = "a shared secret of the gateway"
            $0.mailRetry = RetryPolicy(first: 0.2, longest: 0.5, attempts: 100)
            $0.mailPoll = .milliseconds(200)
        }) { api in
            let gil = try await api.register("Gil Gateway")
            #expect(
                try await api.call(.post, "/api/v1/me/phone", as: gil, json: ["phone": "+447700900134"]).status
                    == .accepted)
            let received = try await gateway.waitForRequests(1)
            let request = try #require(received.first)
            #expect(request["path"] as? String == "/send")
            let headers = request["headers"] as? [String: String] ?? [:]
            #expect(
                headers.first { $0.key.lowercased() == "x-rollcall-secret" }?.value == "a shared secret of the gateway")
            #expect(headers.first { $0.key.lowercased() == "content-type" }?.value == "application/json")
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data((request["body"] as? String ?? "").utf8)) as? [String: Any])
            #expect(body["to"] as? String == "+447700900134")
            let text = try #require(body["text"] as? String)
            #expect(
                text.hasSuffix(
                    "is your Rollcall code to confirm this number. It works for 5 minutes. Nobody from school will ask you for it."
                ))
            try await eventually("the outbox marks the text sent") {
                try await api.outbox().first?.status == "sent"
            }
            let stored = try #require(try await api.outbox().first)
            #expect(stored.attempts == 2, "the gateway refused the first attempt")
            #expect(body["id"] as? Int64 == stored.id)
            let confirmed = try await api.call(
                .post, "/api/v1/me/phone/confirm", as: gil,
                json: ["phone": "+447700900134", "code": String(text.prefix(6))])
            #expect(confirmed.status == .ok)
        }
    }

    @Test func the_sms_settings_are_checked_at_start() throws {
        #expect {
            _ = try Configuration.fromEnvironment(["ROLLCALL_SMS_WEBHOOK_URL": "https://sms.school.test/send"])
        } throws: { ($0 as? ConfigurationError)?.variable == "ROLLCALL_SMS_WEBHOOK_SECRET" }
        #expect {
            _ = try Configuration.fromEnvironment([
                "ROLLCALL_SMS_WEBHOOK_URL": "ftp://sms.school.test",
                "ROLLCALL_SMS_WEBHOOK_SECRET": String(repeating: "s", count: 20),
            ])
        } throws: { ($0 as? ConfigurationError)?.variable == "ROLLCALL_SMS_WEBHOOK_URL" }
        #expect {
            _ = try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_REGION": "Narnia"])
        } throws: { ($0 as? ConfigurationError)?.variable == "ROLLCALL_DEFAULT_REGION" }
        let configuration = try Configuration.fromEnvironment([
            "ROLLCALL_DEFAULT_REGION": "fr", "ROLLCALL_SMS_WEBHOOK_URL": "https://sms.school.test/send",
            "ROLLCALL_SMS_WEBHOOK_SECRET": String(repeating: "s", count: 20),
        ])
        #expect(configuration.defaultRegion == "FR")
        #expect(configuration.smsWebhook?.host == "sms.school.test")
    }
}

/// Tests/mail/sms_gateway.py on loopback: keeps every POST it receives.
final class GatewayProcess: @unchecked Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-sms-\(UUID())")
    let process = Process()
    private(set) var port = 0

    init(failFirst: Int = 0) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let root = MailServerProcess.root
        process.executableURL = root.appendingPathComponent(".build/python/bin/python")
        process.arguments = [
            root.appendingPathComponent("Tests/mail/sms_gateway.py").path, "--dir", directory.path, "--fail",
            String(failFirst),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let ready = directory.appendingPathComponent("ready")
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: ready.path) {
            try #require(process.isRunning && Date() < deadline, "the SMS gateway did not start")
            Thread.sleep(forTimeInterval: 0.05)
        }
        port = Int(try String(contentsOf: ready, encoding: .utf8)) ?? 0
    }

    func waitForRequests(_ count: Int) async throws -> [[String: Any]] {
        let folder = directory.appendingPathComponent("requests")
        try await eventually("\(count) requests at the gateway") {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count >= count
        }
        return try ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted().map { name in
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name)))
                as? [String: Any] ?? [:]
        }
    }

    func stop() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
