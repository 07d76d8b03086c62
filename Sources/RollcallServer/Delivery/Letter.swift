import Foundation
import RollcallCore

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

    /// Builds a letter from paragraphs, a list after them if any, and a link that becomes a button in the HTML;
    /// `closing` paragraphs come after the link.
    init(
        subject: String, greeting: String, paragraphs: [String], list: [String] = [],
        link: (label: String, url: String)?, closing: [String] = [], signature: String
    ) {
        self.subject = subject
        var text = [greeting] + paragraphs
        if !list.isEmpty { text.append(list.map { "- \($0)" }.joined(separator: "\n")) }
        if let link { text.append(link.url) }
        text += closing
        text.append(signature)
        self.text = text.joined(separator: "\n\n") + "\n"
        var body = ["<p>\(Self.escape(greeting))</p>"] + paragraphs.map { "<p>\(Self.escape($0))</p>" }
        if !list.isEmpty { body.append("<ul>\n" + list.map { "<li>\(Self.escape($0))</li>\n" }.joined() + "</ul>") }
        if let link {
            body.append(
                "<p><a href=\"\(Self.escape(link.url))\" style=\"display:inline-block;padding:10px 16px;background:#1f6feb;color:#ffffff;border-radius:6px;text-decoration:none\">\(Self.escape(link.label))</a></p>"
            )
            body.append(
                "<p style=\"color:#555555;font-size:13px\">If the button does not work, copy this address into your browser: \(Self.escape(link.url))</p>"
            )
        }
        body += closing.map { "<p style=\"color:#555555;font-size:13px\">\(Self.escape($0))</p>" }
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
            // Rollcall's own words in the subject: the teacher's course name goes in the body only.
            subject: "Your class check-in at \(school)", greeting: "Hello \(name),",
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

    /// A student's weekly note while their attendance is below the course's threshold.
    func absenceNotice(
        name: String, course: String, teacher: String, summary: AttendanceSummary, threshold: Int, link: String
    ) -> Letter {
        let percent = Self.percent(summary)
        let counts = [
            (AttendanceStatus.present, "present"), (.late, "late"), (.excused, "excused"), (.absent, "absent"),
        ].map { "\(summary.counts[$0.0] ?? 0) \($0.1)" }.joined(separator: ", ")
        return Letter(
            subject: "Your attendance in \(course): \(percent)", greeting: "Hello \(name),",
            paragraphs: [
                "You have attended \(percent) of the sessions of \(course) at \(school) so far "
                    + "(\(summary.sessions) session\(summary.sessions == 1 ? "" : "s"): \(counts)). "
                    + "The course asks for at least \(threshold)%.",
                "If an absence should be excused or a record is wrong, tell \(teacher): they can correct it.",
            ],
            link: ("See my attendance", link),
            closing: [
                "You get this note on Mondays while your attendance is below \(threshold)%. To stop it, turn off "
                    + "“Weekly absence notes” on the course's page."
            ],
            signature: signature)
    }

    /// The teacher's weekly list of the course's students below the threshold, each with their figures.
    func absenceList(
        name: String, course: String, threshold: Int, students: [(name: String, summary: AttendanceSummary)],
        link: String
    ) -> Letter {
        let count = students.count == 1 ? "1 student" : "\(students.count) students"
        let lines = students.map { student, summary in
            let absent = summary.counts[.absent] ?? 0
            return "\(student): \(Self.percent(summary)), \(absent) absence\(absent == 1 ? "" : "s") in "
                + "\(summary.sessions) session\(summary.sessions == 1 ? "" : "s")"
        }
        return Letter(
            subject: "\(course): \(count) below \(threshold)% attendance", greeting: "Hello \(name),",
            paragraphs: ["\(count) of \(course) at \(school) attended less than \(threshold)% of the sessions so far:"],
            list: lines, link: ("Open the course", link),
            closing: [
                "Each of them got a note of their own, unless they turned the notes off or their account is closed. "
                    + "You get this list on Mondays "
                    + "while the course's weekly absence notices are on; turn them off in the course's settings."
            ],
            signature: signature)
    }

    /// Attendance as the letters say it: rounded down, so that 79.6 % does not read as the 80 % a course asks for.
    static func percent(_ summary: AttendanceSummary) -> String {
        "\(Int((summary.percentage ?? 0).rounded(.down)))%"
    }
}
