import Foundation
import RollcallCore
import RollcallModel
import RollcallWords

/// A message in plain words, as text and as HTML: every email Rollcall writes is one of these.
package struct Letter: Sendable, Equatable {
    package var subject: String
    package var text: String
    package var html: String

    /// The letter as an email to `recipient`.
    package func email(to recipient: String, name: String?) -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, recipient: recipient, recipientName: name, subject: subject, text: text, html: html)
    }

    /// Builds a letter from paragraphs, a list after them if any, and a link that becomes a button in the HTML;
    /// `closing` paragraphs come after the link. `reader`: the recipient, for the words the letter adds itself.
    package init(
        subject: String, greeting: String, paragraphs: [String], list: [String] = [],
        link: (label: String, url: String)?, closing: [String] = [], signature: String, to reader: Reader
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
            let fallback = reader.say("If the button does not work, copy this address into your browser: \(link.url)")
            body.append(
                "<p><a href=\"\(Self.escape(link.url))\" style=\"display:inline-block;padding:10px 16px;background:#1f6feb;color:#ffffff;border-radius:6px;text-decoration:none\">\(Self.escape(link.label))</a></p>"
            )
            body.append("<p style=\"color:#555555;font-size:13px\">\(Self.escape(fallback))</p>")
        }
        body += closing.map { "<p style=\"color:#555555;font-size:13px\">\(Self.escape($0))</p>" }
        body.append("<p style=\"color:#555555\">\(Self.escape(signature))</p>")
        html =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(Self.escape(subject))</title></head>\n"
            + "<body style=\"font-family:sans-serif;line-height:1.5;max-width:560px\">\n" + body.joined(separator: "\n")
            + "\n</body></html>\n"
    }

    /// HTML for a message stored with text alone.
    package static func html(fromText text: String) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body><pre style=\"font-family:sans-serif;white-space:pre-wrap\">"
            + escape(text) + "</pre></body></html>\n"
    }

    package static func escape(_ text: String) -> String {
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
package struct Letters: Sendable {
    /// The school's name (`ROLLCALL_SCHOOL_NAME`), or Rollcall's own.
    package var school: String

    /// The language of letters to people who chose none (`ROLLCALL_DEFAULT_LANGUAGE`).
    package var language = "en"
    /// Whom the letters are written for: the school's language until `written(for:)` names the recipient's, or the
    /// reader of a request that writes to the person asking.
    package var reader: Reader

    package init(school: String, language: String = "en", reader: Reader? = nil) {
        self.school = school
        self.language = language
        self.reader = reader ?? Reader(Catalogs.shipped[language])
    }

    /// The letters in the recipient's language: the one they chose, else the school's. Letters leave outside any
    /// request, or in answer to someone else's, so the recipient's language is named for each.
    package func written(for recipientLanguage: String?) -> Letters {
        var letters = self
        letters.reader = Reader(Catalogs.shipped[recipientLanguage ?? language])
        return letters
    }

    package var signature: String { school == "Rollcall" ? "Rollcall" : reader.say("Rollcall at \(school)") }

    package func emailConfirmation(name: String, link: String) -> Letter {
        Letter(
            subject: reader.say("Confirm your email address for \(school)"), greeting: reader.say("Hello \(name),"),
            paragraphs: [reader.say("Open this link to confirm your email address. It works for 48 hours.")],
            link: (reader.say("Confirm my email address"), link), signature: signature, to: reader)
    }

    /// Proving the address ended links to sign-ins made before the proof: the person learns why, and how to link
    /// again if it was them.
    package func linksEnded(name: String, count: Int, profile: String) -> Letter {
        Letter(
            subject: reader.say("Sign-in links removed from your account at \(school)"),
            greeting: reader.say("Hello \(name),"),
            paragraphs: [
                reader.say(
                    count,
                    one:
                        "You have just confirmed your email address. Before that, {0} sign-in of a school or learning platform had been linked to your account, and Rollcall removed it: until the address was confirmed, anyone who registered it could have linked their own.",
                    other:
                        "You have just confirmed your email address. Before that, {0} sign-ins of a school or learning platform had been linked to your account, and Rollcall removed them: until the address was confirmed, anyone who registered it could have linked their own."
                ),
                reader.say("If you linked it yourself, sign in and link it again from your profile."),
            ],
            link: (reader.say("Open my profile"), profile), signature: signature, to: reader)
    }

    /// An invitation from a roster: to register with the invited address, or, where the school's sign-in is on
    /// (`schoolSignIn`, its button's words in the reader's language), to sign in with it.
    package func invitation(name: String, teacher: String, course: String, link: String, schoolSignIn: String? = nil)
        -> Letter
    {
        let how: (paragraph: String, button: String) =
            if let schoolSignIn {
                (
                    reader.say(
                        "Choose “\(schoolSignIn)” on Rollcall's sign-in page, with this email address, and the course is yours."
                    ),
                    schoolSignIn
                )
            } else {
                (
                    reader.say("Create your account with this email address and confirm it, and the course is yours."),
                    reader.say("Create my account")
                )
            }
        return Letter(
            // Rollcall's own words in the subject: the teacher's course name goes in the body only.
            subject: reader.say("Your class check-in at \(school)"), greeting: reader.say("Hello \(name),"),
            paragraphs: [
                // A school that names itself nothing is Rollcall: "at Rollcall on Rollcall" says it twice.
                school == "Rollcall"
                    ? reader.say("\(teacher) added you to \(course) on Rollcall, where you will check in to class.")
                    : reader.say(
                        "\(teacher) added you to \(course) at \(school) on Rollcall, where you will check in to class."),
                how.paragraph,
            ],
            link: (how.button, link), signature: signature, to: reader)
    }

    package func passwordReset(name: String, link: String, minutes: Int, byAdmin: Bool) -> Letter {
        Letter(
            subject: reader.say("Set a new password for \(school)"), greeting: reader.say("Hello \(name),"),
            paragraphs: [
                byAdmin
                    ? reader.say("An admin of \(school) sent you this link to set a new password for Rollcall.")
                    : reader.say("Someone, probably you, asked to set a new password for your Rollcall account."),
                reader.say(
                    minutes,
                    one: "The link works once, for {0} minute. Setting a new password signs you out everywhere else.",
                    other: "The link works once, for {0} minutes. Setting a new password signs you out everywhere else."
                ),
                reader.say("If you did not ask for this, ignore this message: your password stays as it is."),
            ],
            link: (reader.say("Set a new password"), link), signature: signature, to: reader)
    }

    /// A student's weekly note while their attendance is below the course's threshold.
    package func absenceNotice(
        name: String, course: String, teacher: String, summary: AttendanceSummary, threshold: Int, link: String
    ) -> Letter {
        let percent = Self.percent(summary)
        let counts = [
            reader.say(summary.counts[.present] ?? 0, one: "{0} present", other: "{0} present"),
            reader.say(summary.counts[.late] ?? 0, one: "{0} late", other: "{0} late"),
            reader.say(summary.counts[.excused] ?? 0, one: "{0} excused", other: "{0} excused"),
            reader.say(summary.counts[.absent] ?? 0, one: "{0} absent", other: "{0} absent"),
        ].joined(separator: ", ")
        return Letter(
            subject: reader.say("Your attendance in \(course): \(percent)"), greeting: reader.say("Hello \(name),"),
            paragraphs: [
                reader.say(
                    summary.sessions,
                    one:
                        "You have attended {1} of the sessions of {2} at {3} so far ({0} session: {4}). The course asks for at least {5}%.",
                    other:
                        "You have attended {1} of the sessions of {2} at {3} so far ({0} sessions: {4}). The course asks for at least {5}%.",
                    .text(percent), .text(course), .text(school), .text(counts), .number(threshold)),
                reader.say(
                    "If an absence should be excused or a record is wrong, tell \(teacher): they can correct it."),
            ],
            link: (reader.say("See my attendance"), link),
            closing: [
                reader.say(
                    "You get this note on Mondays while your attendance is below \(threshold)%. To stop it, turn off “Weekly absence notes” on the course's page."
                )
            ],
            signature: signature, to: reader)
    }

    /// The teacher's weekly list of the course's students below the threshold, each with their figures.
    package func absenceList(
        name: String, course: String, threshold: Int, students: [(name: String, summary: AttendanceSummary)],
        link: String
    ) -> Letter {
        let count = reader.say(students.count, one: "{0} student", other: "{0} students")
        let lines = students.map { student, summary in
            let absences = reader.say(summary.counts[.absent] ?? 0, one: "{0} absence", other: "{0} absences")
            let sessions = reader.say(summary.sessions, one: "{0} session", other: "{0} sessions")
            return reader.say("\(student): \(Self.percent(summary)), \(absences) in \(sessions)")
        }
        return Letter(
            subject: reader.say("\(course): \(count) below \(threshold)% attendance"),
            greeting: reader.say("Hello \(name),"),
            paragraphs: [
                reader.say(
                    "\(count) of \(course) at \(school) attended less than \(threshold)% of the sessions so far:")
            ],
            list: lines, link: (reader.say("Open the course"), link),
            closing: [
                reader.say(
                    "Each of them got a note of their own, unless they turned the notes off or their account is closed. You get this list on Mondays while the course's weekly absence notices are on; turn them off in the course's settings."
                )
            ],
            signature: signature, to: reader)
    }

    /// Attendance as the letters say it: rounded down, so that 79.6 % does not read as the 80 % a course asks for.
    package static func percent(_ summary: AttendanceSummary) -> String {
        "\(Int((summary.percentage ?? 0).rounded(.down)))%"
    }
}
