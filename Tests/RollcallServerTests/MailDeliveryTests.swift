import Foundation
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallCore
@testable import RollcallServer

/// Email delivered through a real SMTP server that the test starts on loopback.
@Suite("Mail delivery", .serialized, .timeLimit(.minutes(5)))
struct MailDeliveryTests {
    /// A delivered message read back: its headers (unfolded) and its decoded parts by content type.
    struct Received {
        var headers: [String: String]
        var parts: [String: String]

        init(_ data: String) throws {
            let sections = data.components(separatedBy: "\r\n\r\n")
            let head = try #require(sections.first).replacingOccurrences(of: "\r\n ", with: " ")
            headers = Dictionary(
                head.components(separatedBy: "\r\n").map { line in
                    let colon = line.firstIndex(of: ":")!
                    return (
                        String(line[..<colon]),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                    )
                }, uniquingKeysWith: { first, _ in first })
            let type = try #require(headers["Content-Type"])
            let boundary = try #require(type.firstMatch(of: /boundary="([^"]+)"/)?.1)
            #expect(data.hasSuffix("--\(boundary)--\r\n"), "the message ends with its closing boundary")
            parts = [:]
            for part in data.components(separatedBy: "--\(boundary)\r\n").dropFirst() {
                let pieces = part.components(separatedBy: "\r\n\r\n")
                let partType = try #require(pieces[0].firstMatch(of: /Content-Type: ([a-z\/]+); charset=utf-8/)?.1)
                #expect(pieces[0].contains("Content-Transfer-Encoding: base64"))
                let encoded = pieces[1].components(separatedBy: "\r\n--")[0].replacingOccurrences(of: "\r\n", with: "")
                let decoded = try #require(Data(base64Encoded: encoded), "a base64 part")
                parts[String(partType)] = String(decoding: decoded, as: UTF8.self)
            }
        }

        /// A header with its RFC 2047 encoded words decoded.
        func decoded(_ name: String) -> String? {
            guard let value = headers[name] else { return nil }
            var text = ""
            var rest = value[...]
            while let match = rest.firstMatch(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]*)\?=/) {
                let between = rest[..<match.range.lowerBound]
                if !between.allSatisfy(\.isWhitespace) { text += between }
                text += String(decoding: Data(base64Encoded: String(match.1)) ?? Data(), as: UTF8.self)
                rest = rest[match.range.upperBound...]
            }
            return text + rest
        }
    }

    static func outbox(_ api: API) async throws -> [OutboxMessage] { try await api.outbox() }

    @Test func a_confirmation_arrives_over_starttls_with_auth_plain_as_proper_utf8_mime() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        let sender = Mailbox(address: "rollcall@school.test", name: "Rollcall · École Saint-Exupéry")
        try await withServer(configure: {
            $0.deliver(to: mail, from: sender)
            $0.schoolName = "École Saint-Exupéry"
        }) { api in
            let registered = try await api.call(
                .post, "/api/v1/auth/register",
                json: ["name": "Zoë Ångström", "email": "zoe@school.test", "password": API.password])
            #expect(registered.status == .created)

            let delivered = try await mail.waitForMessages(1)
            let (data, envelope) = try #require(delivered.first)
            #expect(envelope["mail_from"] as? String == "rollcall@school.test")
            #expect(envelope["rcpt_tos"] as? [String] == ["zoe@school.test"])
            #expect(envelope["login"] as? String == "rollcall", "signed in with AUTH PLAIN")
            #expect(envelope["tls"] as? Bool == true, "after STARTTLS")
            let message = try Received(data)
            #expect(message.headers["Subject"]?.hasPrefix("=?UTF-8?B?") == true, "\(data)")
            #expect(message.decoded("Subject") == "Confirm your email address for École Saint-Exupéry")
            #expect(message.decoded("To") == "Zoë Ångström <zoe@school.test>")
            #expect(message.decoded("From") == "Rollcall · École Saint-Exupéry <rollcall@school.test>")
            #expect(message.headers["MIME-Version"] == "1.0")
            #expect(
                message.headers["Date"]?.wholeMatch(
                    of: /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000/)
                    != nil, "\(message.headers)")
            let stored = try #require(try await api.outbox().first)
            #expect(message.headers["Message-ID"]?.wholeMatch(of: /<rollcall\.\d+\.\d+@school\.test>/) != nil)
            let token = try #require(stored.body.firstMatch(of: /token=([\w-]+)/)?.1)
            let link = "http://localhost:8080/verify-email?token=\(token)"
            #expect(
                message.parts["text/plain"]
                    == "Hello Zoë Ångström,\r\n\r\nOpen this link to confirm your email address. It works for 48 hours."
                    + "\r\n\r\n\(link)\r\n\r\nRollcall at École Saint-Exupéry\r\n")
            let html = try #require(message.parts["text/html"])
            #expect(html.contains("<p>Hello Zoë Ångström,</p>"))
            #expect(html.contains("<a href=\"\(link)\""))
            #expect(html.contains("<title>Confirm your email address for École Saint-Exupéry</title>"))
            // Every line within the limits, and the whole message exactly as composed from the stored one.
            #expect(data.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 998 })
            #expect(data.matches(of: /=\?UTF-8\?B\?[^?]*\?=/).allSatisfy { $0.output.count <= 75 })
            #expect(data == MailCourier.mail(stored, from: sender).rendered())

            try await eventually("the outbox marks the message sent") {
                try await api.outbox().first?.status == "sent"
            }
            let sent = try #require(try await api.outbox().first)
            #expect(sent.attempts == 1)
            #expect(sent.sentAt != nil)
            #expect(sent.lastError == nil)
        }
    }

    @Test func implicit_tls_and_auth_login_deliver_too() async throws {
        let mail = try MailServerProcess(tls: "implicit", onlyLogin: true)
        defer { mail.stop() }
        try await withServer(configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Liam Login")
            let delivered = try await mail.waitForMessages(1)
            #expect(delivered.first?.envelope["login"] as? String == "rollcall", "signed in with AUTH LOGIN")
            #expect(delivered.first?.envelope["rcpt_tos"] as? [String] == ["liam.login@school.test"])
        }
    }

    @Test func a_wrong_password_keeps_the_message_queued_with_the_reason() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        try await withServer(configure: {
            $0.deliver(to: mail)
            $0.mailServer?.password = "wrong"
        }) { api in
            _ = try await api.register("Wanda Wrong")
            try await eventually("a failed attempt is recorded") {
                (try await api.outbox().first?.attempts ?? 0) >= 2
            }
            let message = try #require(try await api.outbox().first)
            #expect(message.status == "queued" || message.status == "sending")
            #expect(message.lastError?.contains("AUTH PLAIN refused: 535") == true, "\(message.lastError ?? "")")
            #expect(try mail.messages().isEmpty)
        }
    }

    @Test func a_recipient_the_mail_server_refuses_fails_at_once_without_retrying() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        try await withServer(configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.call(
                .post, "/api/v1/auth/register",
                json: ["name": "Nobody", "email": "nobody@school.test", "password": API.password])
            try await eventually("the message is marked failed") {
                try await api.outbox().first?.status == "failed"
            }
            let message = try #require(try await api.outbox().first)
            #expect(message.attempts == 1)
            #expect(message.lastError?.contains("550") == true)
            #expect(message.nextAttemptAt == nil)
        }
    }

    @Test func an_address_outside_ascii_goes_with_smtputf8_and_an_ascii_one_without() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        try await withServer(configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Zoë Ångström", email: "zoë@école.test")
            _ = try await api.register("Ann Ascii")
            let delivered = try await mail.waitForMessages(2)
            let international = try #require(
                delivered.first { ($0.envelope["rcpt_tos"] as? [String]) == ["zoë@école.test"] })
            #expect(international.envelope["mail_options"] as? [String] == ["SMTPUTF8"])
            #expect(international.data.contains("To: =?UTF-8?B?") && international.data.contains("<zoë@école.test>"))
            let plain = try #require(
                delivered.first { ($0.envelope["rcpt_tos"] as? [String]) == ["ann.ascii@school.test"] })
            #expect(plain.envelope["mail_options"] as? [String] == [], "SMTPUTF8 only where it is needed")
        }
    }

    @Test func a_mail_server_without_smtputf8_fails_such_a_message_at_once_saying_why() async throws {
        let mail = try MailServerProcess(tls: "starttls", smtputf8: false)
        defer { mail.stop() }
        try await withServer(configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Zoë Ångström", email: "zoë@école.test")
            try await eventually("the message is marked failed") {
                try await api.outbox().first?.status == "failed"
            }
            let message = try #require(try await api.outbox().first)
            #expect(message.attempts == 1)
            #expect(message.lastError?.contains("does not offer SMTPUTF8") == true, "\(message.lastError ?? "")")
            _ = try await api.register("Ann Ascii")
            let delivered = try await mail.waitForMessages(1)
            #expect(delivered.first?.envelope["rcpt_tos"] as? [String] == ["ann.ascii@school.test"])
        }
    }

    @Test func killing_the_mail_server_mid_queue_delivers_every_message_once_when_it_returns() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        try await withServer(configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Ann Before")
            _ = try await mail.waitForMessages(1)

            mail.kill()
            _ = try await api.register("Ben During")
            _ = try await api.register("Cat During")
            try await eventually("both messages failed at least twice while the server is down") {
                let waiting = try await api.outbox().filter { $0.recipient.contains("during") }
                return waiting.count == 2 && waiting.allSatisfy { $0.attempts >= 2 && $0.lastError != nil }
            }
            #expect(try mail.messages().count == 1)

            try mail.start()
            _ = try await mail.waitForMessages(3)
            try await eventually("all three are marked sent") {
                try await api.outbox().allSatisfy { $0.status == "sent" }
            }
            // A later message goes through the same queue after them: by then a second copy would have gone too.
            _ = try await api.register("Dan After")
            let delivered = try await mail.waitForMessages(4)
            let recipients = delivered.compactMap { ($0.envelope["rcpt_tos"] as? [String])?.first }
            #expect(
                recipients.sorted()
                    == [
                        "ann.before@school.test", "ben.during@school.test", "cat.during@school.test",
                        "dan.after@school.test",
                    ])
        }
    }

    @Test func a_message_queued_while_the_mail_server_is_down_survives_a_restart_and_goes_once() async throws {
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-restart-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        mail.kill()
        try await withServer(dataDirectory: directory, configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Rita Restart")
            try await eventually("an attempt failed") { (try await api.outbox().first?.attempts ?? 0) >= 1 }
        }
        try mail.start()
        try await withServer(dataDirectory: directory, configure: { $0.deliver(to: mail) }) { api in
            _ = try await mail.waitForMessages(1)
            try await eventually("the message is marked sent") { try await api.outbox().first?.status == "sent" }
        }
        try await withServer(dataDirectory: directory, configure: { $0.deliver(to: mail) }) { api in
            _ = try await api.register("Sam Second")
            let delivered = try await mail.waitForMessages(2)
            #expect(
                delivered.compactMap { ($0.envelope["rcpt_tos"] as? [String])?.first }
                    == ["rita.restart@school.test", "sam.second@school.test"])
        }
    }

    @Test func failed_attempts_wait_twice_as_long_each_time_up_to_an_hour_and_stop_after_twelve() {
        let retry = RetryPolicy()
        #expect((1...6).map { retry.wait(after: $0) } == [30, 60, 120, 240, 480, 960])
        #expect(retry.wait(after: 8) == 3600)
        #expect(retry.wait(after: 11) == 3600)
        #expect(retry.wait(after: 12) == nil, "the twelfth failure is the last")
    }

    @Test func without_a_mail_server_messages_stay_in_the_outbox_as_stored() async throws {
        try await withServer { api in
            _ = try await api.register("Olga Outbox")
            let admin = try await api.admin()
            let reply = try await api.call(.get, "/api/v1/admin/outbox", as: admin)
            let message = try #require(reply.list("messages").first)
            #expect(message["status"] as? String == "stored")
            #expect(message["attempts"] as? Int == 0)
            #expect(message["recipientName"] as? String == "Olga Outbox")
            #expect((message["html"] as? String)?.contains("<a href=") == true)
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(page.text.contains("no provider is configured for email"))
        }
    }

    @Test(arguments: [
        ("ftp://mail.school.test", "must start with smtp://"),
        ("smtp://user:pass@mail.school.test", "unencrypted"),
        ("smtps://user@mail.school.test", "without a password"),
        ("smtp+starttls://mail.school.test:70000", "port"),
        ("not a url", "must be a URL"),
    ])
    func a_mail_server_url_that_cannot_work_stops_the_start_with_a_sentence(url: String, problem: String) {
        #expect {
            _ = try Configuration.fromEnvironment([
                "ROLLCALL_SMTP_URL": url, "ROLLCALL_MAIL_FROM": "rollcall@school.test",
            ])
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.variable == "ROLLCALL_SMTP_URL" && error?.problem.contains(problem) == true
        }
    }

    @Test func the_mail_settings_are_read_and_a_sender_is_required() throws {
        let configuration = try Configuration.fromEnvironment([
            "ROLLCALL_SMTP_URL": "smtp+starttls://roll%40call:p%3Ass@mail.school.test",
            "ROLLCALL_MAIL_FROM": "Rollcall at Hill School <Rollcall@Hill.test>", "ROLLCALL_SCHOOL_NAME": "Hill School",
        ])
        #expect(
            configuration.mailServer
                == MailServer(
                    host: "mail.school.test", port: 587, security: .startTLS, username: "roll@call", password: "p:ss"))
        #expect(configuration.mailFrom == Mailbox(address: "rollcall@hill.test", name: "Rollcall at Hill School"))
        #expect(configuration.schoolName == "Hill School")
        #expect {
            _ = try Configuration.fromEnvironment(["ROLLCALL_SMTP_URL": "smtps://mail.school.test"])
        } throws: { ($0 as? ConfigurationError)?.variable == "ROLLCALL_MAIL_FROM" }
        #expect {
            _ = try Configuration.fromEnvironment([
                "ROLLCALL_SMTP_URL": "smtps://mail.school.test", "ROLLCALL_MAIL_FROM": "not an address",
            ])
        } throws: { ($0 as? ConfigurationError)?.variable == "ROLLCALL_MAIL_FROM" }
        #expect(try Configuration.fromEnvironment([:]).mailServer == nil)
    }
}
