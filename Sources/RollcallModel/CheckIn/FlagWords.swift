import Foundation
import RollcallCore

/// What a check-in flag says, kept as a phrase (`Phrase.storedText`) and said in each reader's language: the
/// teacher in Lyon reads in French the flag a student's English phone raised.
package enum FlagWords {
    /// A student tried to check in from a phone another student used in the session: `owner` when known.
    package static func sharedPhone(student: String, owner: String?) -> Phrase {
        guard let owner else {
            return "\(student) tried to check in from a phone another student already used in this session."
        }
        return "\(student) tried to check in from the phone \(owner) used in this session."
    }

    /// A check-in refused for the distance to the room, in whole metres where the phone said.
    package static func outOfRange(student: String, metres: Int?) -> Phrase {
        guard let metres else { return "\(student) tried to check in too far from the room." }
        return "\(student) tried to check in \(metres) m from the room."
    }

    /// A check-in refused for a location too imprecise to tell, with the phone's accuracy in metres where it said.
    package static func imprecise(student: String, metres: Int?) -> Phrase {
        guard let metres else {
            return "\(student) tried to check in, but the phone placed them only within a wide area."
        }
        return "\(student) tried to check in, but the phone placed them only within \(metres) m."
    }

    package static func passkeyTwoDevices(student: String, passkey: String) -> Phrase {
        "\(student)'s passkey “\(passkey)” was used from two devices in this session."
    }

    package static func passkeyCounterRegressed(student: String, passkey: String) -> Phrase {
        "\(student)'s passkey “\(passkey)” counted backwards: it may have been copied."
    }

    /// A flag's stored details: a phrase, or the English sentence Rollcall stored before it kept phrases, read back
    /// into its phrase where it has one of the forms above, else said as it is.
    package static func reading(_ stored: String) -> Phrase {
        Phrase.stored(stored, older: older)
    }

    /// The phrase of details stored in English, where they have one of the forms Rollcall wrote.
    package static func older(_ text: String) -> Phrase? {
        let named = /(.+) tried to check in from the phone (.+) used in this session\./
        let unnamed = /(.+) tried to check in from a phone another student already used in this session\./
        let far = /(.+) tried to check in (\d+) m from the room\./
        let tooFar = /(.+) tried to check in too far from the room\./
        let within = /(.+) tried to check in, but the phone placed them only within (\d+) m\./
        let wide = /(.+) tried to check in, but the phone placed them only within a wide area\./
        let twoDevices = /(.+)'s passkey “(.+)” was used from two devices in this session\./
        let backwards = /(.+)'s passkey “(.+)” counted backwards: it may have been copied\./
        if let found = text.wholeMatch(of: named) { return sharedPhone(student: "\(found.1)", owner: "\(found.2)") }
        if let found = text.wholeMatch(of: unnamed) { return sharedPhone(student: "\(found.1)", owner: nil) }
        if let found = text.wholeMatch(of: far) { return outOfRange(student: "\(found.1)", metres: Int(found.2)) }
        if let found = text.wholeMatch(of: tooFar) { return outOfRange(student: "\(found.1)", metres: nil) }
        if let found = text.wholeMatch(of: within) { return imprecise(student: "\(found.1)", metres: Int(found.2)) }
        if let found = text.wholeMatch(of: wide) { return imprecise(student: "\(found.1)", metres: nil) }
        if let found = text.wholeMatch(of: twoDevices) {
            return passkeyTwoDevices(student: "\(found.1)", passkey: "\(found.2)")
        }
        if let found = text.wholeMatch(of: backwards) {
            return passkeyCounterRegressed(student: "\(found.1)", passkey: "\(found.2)")
        }
        return nil
    }
}
