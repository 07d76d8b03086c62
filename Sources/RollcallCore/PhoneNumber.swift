/// Phone numbers in E.164 (`+` and at most 15 digits, the country calling code first), read from the ways people
/// write them: `+44 20 7946 0958`, `0044 20 7946 0958`, `020 7946 0958` with the region GB, `(415) 555-0132` with
/// the region US.
public enum PhoneNumber {
    /// A region's calling code, the prefix dialled before a national number at home ("0" in much of the world),
    /// and how many digits its national numbers have without that prefix.
    public struct Region: Sendable, Equatable {
        public var callingCode: String
        public var trunkPrefix: String
        public var nationalLengths: ClosedRange<Int>
    }

    /// The regions a server default may name (ISO 3166-1 alpha-2); a number with its own `+` may be from anywhere.
    public static let regions: [String: Region] = [
        "US": Region(callingCode: "1", trunkPrefix: "1", nationalLengths: 10...10),
        "CA": Region(callingCode: "1", trunkPrefix: "1", nationalLengths: 10...10),
        "GB": Region(callingCode: "44", trunkPrefix: "0", nationalLengths: 9...10),
        "IE": Region(callingCode: "353", trunkPrefix: "0", nationalLengths: 7...9),
        "FR": Region(callingCode: "33", trunkPrefix: "0", nationalLengths: 9...9),
        "DE": Region(callingCode: "49", trunkPrefix: "0", nationalLengths: 6...13),
        "NL": Region(callingCode: "31", trunkPrefix: "0", nationalLengths: 9...9),
        "BE": Region(callingCode: "32", trunkPrefix: "0", nationalLengths: 8...9),
        "LU": Region(callingCode: "352", trunkPrefix: "", nationalLengths: 4...11),
        "CH": Region(callingCode: "41", trunkPrefix: "0", nationalLengths: 9...9),
        "AT": Region(callingCode: "43", trunkPrefix: "0", nationalLengths: 4...13),
        "ES": Region(callingCode: "34", trunkPrefix: "", nationalLengths: 9...9),
        "PT": Region(callingCode: "351", trunkPrefix: "", nationalLengths: 9...9),
        "IT": Region(callingCode: "39", trunkPrefix: "", nationalLengths: 6...11),
        "DK": Region(callingCode: "45", trunkPrefix: "", nationalLengths: 8...8),
        "NO": Region(callingCode: "47", trunkPrefix: "", nationalLengths: 8...8),
        "SE": Region(callingCode: "46", trunkPrefix: "0", nationalLengths: 7...9),
        "FI": Region(callingCode: "358", trunkPrefix: "0", nationalLengths: 5...10),
        "PL": Region(callingCode: "48", trunkPrefix: "", nationalLengths: 9...9),
        "CZ": Region(callingCode: "420", trunkPrefix: "", nationalLengths: 9...9),
        "GR": Region(callingCode: "30", trunkPrefix: "", nationalLengths: 10...10),
        "TR": Region(callingCode: "90", trunkPrefix: "0", nationalLengths: 10...10),
        "IL": Region(callingCode: "972", trunkPrefix: "0", nationalLengths: 8...9),
        "ZA": Region(callingCode: "27", trunkPrefix: "0", nationalLengths: 9...9),
        "NG": Region(callingCode: "234", trunkPrefix: "0", nationalLengths: 8...10),
        "KE": Region(callingCode: "254", trunkPrefix: "0", nationalLengths: 9...9),
        "IN": Region(callingCode: "91", trunkPrefix: "0", nationalLengths: 10...10),
        "CN": Region(callingCode: "86", trunkPrefix: "0", nationalLengths: 10...11),
        "JP": Region(callingCode: "81", trunkPrefix: "0", nationalLengths: 9...10),
        "KR": Region(callingCode: "82", trunkPrefix: "0", nationalLengths: 8...10),
        "SG": Region(callingCode: "65", trunkPrefix: "", nationalLengths: 8...8),
        "AU": Region(callingCode: "61", trunkPrefix: "0", nationalLengths: 9...9),
        "NZ": Region(callingCode: "64", trunkPrefix: "0", nationalLengths: 8...10),
        "BR": Region(callingCode: "55", trunkPrefix: "0", nationalLengths: 10...11),
        "MX": Region(callingCode: "52", trunkPrefix: "", nationalLengths: 10...10),
        "AR": Region(callingCode: "54", trunkPrefix: "0", nationalLengths: 10...11),
    ]

    /// The number in E.164, or a sentence saying what to enter; `defaultRegion` (such as "GB") is the country of a
    /// number written without `+` or `00`.
    public static func normalized(_ raw: String, defaultRegion: String?, field: String = "phone") throws(RuleViolation)
        -> String
    {
        // A phrase, not a string: said in the reader's language wherever it goes.
        let example: Phrase = "Enter the phone number with its country code, like +44 20 7946 0958."
        var text = Substring(raw.trimmingWhitespace())
        // Spaces, dashes, dots, brackets and slashes are how people group digits; anything else is not a number.
        text = Substring(text.filter { !" -.()/\u{00A0}".contains($0) })
        guard !text.isEmpty else { throw RuleViolation(field: field, message: example) }
        var international: Substring?
        if text.hasPrefix("+") {
            international = text.dropFirst()
        } else if text.hasPrefix("00") {
            international = text.dropFirst(2)
        } else if text.hasPrefix("011"), defaultRegion.flatMap({ regions[$0.uppercased()] })?.callingCode == "1" {
            international = text.dropFirst(3)
        }
        if let international {
            guard international.allSatisfy(isDigit), (8...15).contains(international.count),
                international.first != "0"
            else {
                throw RuleViolation(
                    field: field, message: "“\(raw)” cannot be a phone number. \(example)")
            }
            return "+" + international
        }
        guard text.allSatisfy(isDigit) else {
            throw RuleViolation(field: field, message: "“\(raw)” cannot be a phone number. \(example)")
        }
        guard let code = defaultRegion?.uppercased(), let region = regions[code] else {
            throw RuleViolation(field: field, message: example)
        }
        var national = text
        if !region.trunkPrefix.isEmpty, national.hasPrefix(region.trunkPrefix),
            region.nationalLengths.contains(national.count - region.trunkPrefix.count)
        {
            national = national.dropFirst(region.trunkPrefix.count)
        }
        guard region.nationalLengths.contains(national.count), national.first != "0" || region.trunkPrefix.isEmpty,
            region.callingCode.count + national.count <= 15
        else {
            throw RuleViolation(
                field: field,
                message:
                    "“\(raw)” is not a \(code) phone number. Check the digits, or start with + and the country code.")
        }
        return "+" + region.callingCode + national
    }

    /// The number with all but its last four digits hidden, for messages about it: `••• 0958`.
    public static func masked(_ e164: String) -> String {
        "••• \(e164.suffix(4))"
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }
}
