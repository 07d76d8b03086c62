/// A person's role in Rollcall; it decides every route they may use.
public enum Role: String, CaseIterable, Codable, Sendable {
    case student, teacher, admin
    /// Runs exposure reports. Granted by an admin on top of a person's own role, never picked when registering.
    case healthOfficer = "health_officer"

    /// Roles a person may pick when registering; admins are made by an admin or the command line.
    public static let selfRegistrable: [Role] = [.student, .teacher]
    /// Roles an admin grants beside a person's own.
    public static let granted: [Role] = [.healthOfficer]
}

/// The rules for what a person may enter about themselves.
public enum AccountRules {
    public static let nameLength = 1...100
    public static let passwordLength = 8...128
    public static let aboutLength = 0...1000
    public static let studentNumberLength = 1...32
    public static let emailLength = 3...254

    /// Trims and lower-cases an email address, or says why it is not one.
    public static func email(_ raw: String) throws(RuleViolation) -> String {
        let email = try TextRules.plain(raw.trimmingWhitespace().lowercased(), field: "email")
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard emailLength.contains(email.count), parts.count == 2, !parts[0].isEmpty,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," })
        else {
            throw RuleViolation(field: "email", message: "Enter an email address such as name@school.edu.")
        }
        return email
    }

    /// A display name: trimmed, not empty, not too long.
    public static func name(_ raw: String, field: String = "name") throws(RuleViolation) -> String {
        let name = try TextRules.plain(raw.trimmingWhitespace(), field: field)
        guard nameLength.contains(name.count), !name.contains(where: \.isNewline) else {
            throw RuleViolation(field: field, message: "Enter a name of 1 to \(nameLength.upperBound) characters.")
        }
        return name
    }

    /// Checks a new password's length; what makes a password strong is length, not character classes.
    public static func password(_ raw: String, field: String = "password") throws(RuleViolation) -> String {
        // bcrypt stops at a NUL: everything after it would not count.
        _ = try TextRules.plain(raw, field: field)
        guard !raw.allSatisfy(\.isWhitespace) else {
            throw RuleViolation(
                field: field, message: "A password of spaces alone is too easy to guess. Choose another.")
        }
        guard passwordLength.contains(raw.count) else {
            throw RuleViolation(
                field: field,
                message: "Choose a password of \(passwordLength.lowerBound) to \(passwordLength.upperBound) characters."
            )
        }
        return raw
    }

    /// A student number as the institution prints it: letters, digits and dashes.
    public static func studentNumber(_ raw: String) throws(RuleViolation) -> String {
        let number = raw.trimmingWhitespace().uppercased()
        guard studentNumberLength.contains(number.count),
            number.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" })
        else {
            throw RuleViolation(
                field: "studentNumber",
                message: "A student number has 1 to 32 letters, digits or dashes."
            )
        }
        return number
    }

    /// A phone number in international form, stored as `+` and digits.
    public static func phone(_ raw: String) throws(RuleViolation) -> String {
        let kept = raw.filter { !" -().".contains($0) }
        let digits = kept.hasPrefix("+") ? kept.dropFirst() : kept[...]
        guard kept.hasPrefix("+"), (7...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw RuleViolation(
                field: "phone", message: "Enter the phone number with its country code, like +44 20 7946 0958.")
        }
        return "+" + digits
    }

    /// Free text about oneself, bounded so a profile page stays a page.
    public static func about(_ raw: String) throws(RuleViolation) -> String {
        let about = try TextRules.plain(raw.trimmingWhitespace(), field: "about", multiline: true)
        guard aboutLength.contains(about.count) else {
            throw RuleViolation(field: "about", message: "Keep “about” under \(aboutLength.upperBound) characters.")
        }
        return about
    }
}

extension String {
    /// Foundation-free trimming so the core builds anywhere.
    func trimmingWhitespace() -> String {
        let scalars = Substring(self).drop(while: \.isWhitespace)
        return String(scalars.reversed().drop(while: \.isWhitespace).reversed())
    }
}
