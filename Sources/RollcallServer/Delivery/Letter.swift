import Foundation

/// A message in plain words, as text and as HTML: every email Rollcall writes is one of these.
struct Letter: Sendable, Equatable {
    var subject: String
    var text: String
    var html: String

    /// The letter as an email to `recipient`.
    func email(to recipient: String, name: String?) -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, recipient: recipient, recipientName: name, subject: subject, text: text, html: html)
    }

    /// Builds a letter from paragraphs; a paragraph that is a link becomes a button-like link in the HTML.
    init(
        subject: String, greeting: String, paragraphs: [String], link: (label: String, url: String)?, signature: String
    ) {
        self.subject = subject
        var text = [greeting] + paragraphs
        if let link { text.append(link.url) }
        text.append(signature)
        self.text = text.joined(separator: "\n\n") + "\n"
        var body = ["<p>\(Self.escape(greeting))</p>"] + paragraphs.map { "<p>\(Self.escape($0))</p>" }
        if let link {
            body.append(
                "<p><a href=\"\(Self.escape(link.url))\" style=\"display:inline-block;padding:10px 16px;background:#1f6feb;color:#ffffff;border-radius:6px;text-decoration:none\">\(Self.escape(link.label))</a></p>"
            )
            body.append(
                "<p style=\"color:#555555;font-size:13px\">If the button does not work, copy this address into your browser: \(Self.escape(link.url))</p>"
            )
        }
        body.append("<p style=\"color:#555555\">\(Self.escape(signature))</p>")
        html =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(Self.escape(subject))</title></head>\n"
            + "<body style=\"font-family:sans-serif;line-height:1.5;max-width:560px\">\n" + body.joined(separator: "\n")
            + "\n</body></html>\n"
    }

    /// HTML for a message stored with text alone.
    static func html(fromText text: String) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body><pre style=\"font-family:sans-serif;white-space:pre-wrap\">"
            + escape(text) + "</pre></body></html>\n"
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// The letters Rollcall sends, in the school's name.
struct Letters: Sendable {
    /// The school's name (`ROLLCALL_SCHOOL_NAME`), or Rollcall's own.
    var school: String

    var signature: String { school == "Rollcall" ? "Rollcall" : "Rollcall at \(school)" }

    func emailConfirmation(name: String, link: String) -> Letter {
        Letter(
            subject: "Confirm your email address for \(school)", greeting: "Hello \(name),",
            paragraphs: ["Open this link to confirm your email address. It works for 48 hours."],
            link: ("Confirm my email address", link), signature: signature)
    }

    func invitation(name: String, teacher: String, course: String, link: String) -> Letter {
        Letter(
            subject: "You're on the roster of \(course)", greeting: "Hello \(name),",
            paragraphs: [
                "\(teacher) added you to \(course) at \(school) on Rollcall, where you will check in to class.",
                "Create your account with this email address and confirm it, and the course is yours.",
            ],
            link: ("Create my account", link), signature: signature)
    }

    func passwordReset(name: String, link: String, minutes: Int, byAdmin: Bool) -> Letter {
        Letter(
            subject: "Set a new password for \(school)", greeting: "Hello \(name),",
            paragraphs: [
                byAdmin
                    ? "An admin of \(school) sent you this link to set a new password for Rollcall."
                    : "Someone, probably you, asked to set a new password for your Rollcall account.",
                "The link works once, for \(minutes) minutes. Setting a new password signs you out everywhere else.",
                "If you did not ask for this, ignore this message: your password stays as it is.",
            ],
            link: ("Set a new password", link), signature: signature)
    }
}
