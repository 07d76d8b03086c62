/// A value a person entered that breaks one of Rollcall's rules, naming the field and saying why in plain words.
public struct RuleViolation: Error, Equatable, Sendable {
    /// The input field at fault, as the API names it (`email`, `password`, `period`…).
    public var field: String
    /// A sentence a person understands, saying what to enter instead.
    public var message: Phrase

    public init(field: String, message: Phrase) {
        self.field = field
        self.message = message
    }

    /// The stable error code for the field: `invalid_` and the field in snake case (`invalid_student_number`).
    public var code: String {
        "invalid_"
            + field.reduce(into: "") { result, character in
                if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
            }
    }
}
