import Foundation
import RollcallCore
import Testing

@Suite("Mail messages", .timeLimit(.minutes(5)))
struct MailMessageTests {
    @Test func ascii_text_stays_as_it_is_and_other_text_becomes_utf8_encoded_words() {
        #expect(MailHeader.encodedWords("Confirm your address") == "Confirm your address")
        #expect(MailHeader.encodedWords("Zoë") == "=?UTF-8?B?Wm/Dqw==?=")
        #expect(MailHeader.encodedWords("two\r\nlines") == "two lines", "a header value cannot start a header")
    }

    @Test func long_text_is_cut_into_words_without_splitting_a_character() throws {
        let subject = String(repeating: "é", count: 40) + " 🎓 " + String(repeating: "ü", count: 30)
        let encoded = MailHeader.encodedWords(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        var decoded = Data()
        for word in words {
            #expect(word.count <= 60)
            let payload = try #require(word.wholeMatch(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]+)\?=/)?.1)
            let bytes = try #require(Data(base64Encoded: String(payload)))
            #expect(String(data: bytes, encoding: .utf8) != nil, "each word is whole UTF-8 on its own")
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
    }

    @Test func mailboxes_quote_ascii_names_and_encode_the_others() {
        #expect(Mailbox(address: "a@b.test").header == "<a@b.test>")
        #expect(
            Mailbox(address: "a@b.test", name: "Ada \"Countess\" L").header == "\"Ada \\\"Countess\\\" L\" <a@b.test>")
        #expect(Mailbox(address: "z@b.test", name: "Zoë").header == "=?UTF-8?B?Wm/Dqw==?= <z@b.test>")
    }

    @Test func dates_are_rfc_5322_in_utc() {
        #expect(MailHeader.date(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailHeader.date(Date(timeIntervalSince1970: 1_795_600_000)) == "Wed, 25 Nov 2026 09:46:40 +0000")
    }

    @Test func a_message_has_its_headers_and_both_parts_in_base64_with_crlf_lines() throws {
        let message = MailMessage(
            from: Mailbox(address: "rollcall@school.test", name: "Rollcall"),
            to: Mailbox(address: "zoe@school.test", name: "Zoë"), subject: "Hello", text: "Line one\nLine two",
            html: "<p>Hi</p>", date: Date(timeIntervalSince1970: 0), messageID: "rollcall.1.0@school.test")
        let rendered = message.rendered()
        #expect(
            rendered.hasPrefix(
                "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\nFrom: \"Rollcall\" <rollcall@school.test>\r\n"
                    + "To: =?UTF-8?B?Wm/Dqw==?= <zoe@school.test>\r\nSubject: Hello\r\n"
                    + "Message-ID: <rollcall.1.0@school.test>\r\nMIME-Version: 1.0\r\n"
                    + "Content-Type: multipart/alternative;\r\n boundary=\"=_rollcall_rollcall10schooltest\"\r\n\r\n"))
        #expect(
            rendered.contains(
                "--=_rollcall_rollcall10schooltest\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    + "Content-Transfer-Encoding: base64\r\n\r\n"
                    + Data("Line one\r\nLine two".utf8).base64EncodedString() + "\r\n"))
        #expect(rendered.contains(Data("<p>Hi</p>".utf8).base64EncodedString()))
        #expect(rendered.hasSuffix("\r\n--=_rollcall_rollcall10schooltest--\r\n"))
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare line feed")
    }

    @Test func mail_server_urls_name_their_security_port_and_credentials() throws {
        #expect(
            try MailServer(url: "smtp://relay.school.test")
                == MailServer(host: "relay.school.test", port: 25, security: .none))
        #expect(
            try MailServer(url: "smtp+starttls://a%40b:p%40ss@mail.test")
                == MailServer(host: "mail.test", port: 587, security: .startTLS, username: "a@b", password: "p@ss"))
        #expect(
            try MailServer(url: "smtps://u:p@mail.test:2465")
                == MailServer(host: "mail.test", port: 2465, security: .implicitTLS, username: "u", password: "p"))
        #expect(try MailServer(url: "smtps://[::1]").host == "::1")
        for bad in ["http://mail.test", "smtp://u:p@mail.test", "smtps://u@mail.test", "smtp://", "smtp://h:0"] {
            #expect(throws: RuleViolation.self, "\(bad)") { try MailServer(url: bad) }
        }
    }
}
