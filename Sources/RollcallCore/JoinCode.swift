/// The short code a student types to join a course: upper-case, with no characters that look alike.
public struct JoinCode: Hashable, Sendable, CustomStringConvertible {
    /// 0/O, 1/I/L, 5/S, 2/Z, 8/B and U/V are left out so that a code read off a projector is typed right.
    public static let alphabet: [Character] = Array("ACDEFGHJKMNPQRTWXY34679")
    public static let length = 7

    public let description: String

    /// Accepts what a student typed, forgiving case, spaces and dashes.
    public init?(typed text: String) {
        let cleaned = text.uppercased().filter { $0 != " " && $0 != "-" }
        guard cleaned.count == Self.length, cleaned.allSatisfy(Self.alphabet.contains) else { return nil }
        self.description = cleaned
    }

    /// Draws a fresh code; the caller checks it is not taken.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> JoinCode {
        let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        return JoinCode(typed: text)!
    }
}

extension JoinCode {
    /// What a code looks like, for messages.
    public static let example = "K7MX3QA"

    /// Why `text` is not a join code, in a sentence a student understands: the length, or the characters no code
    /// ever has (they look like others on a projector).
    public static func problem(with text: String) -> Phrase {
        let cleaned = text.uppercased().filter { $0 != " " && $0 != "-" }
        let foreign = cleaned.filter { !alphabet.contains($0) }
        if !foreign.isEmpty {
            let listed = Array(Set(foreign)).sorted().map(String.init).joined(separator: ", ")
            return
                "A join code never has \(listed): codes leave out 0, O, 1, I, L, 2, Z, 5, S, 8, B, U and V, which look alike. Check the code on the screen and try again."
        }
        return "A join code has \(length) letters and digits, like \(example); this one has \(cleaned.count)."
    }
}
