import RollcallCore
import Testing

@Suite("Phone numbers", .timeLimit(.minutes(5)))
struct PhoneNumberTests {
    @Test(
        arguments: [
            ("+44 20 7946 0958", nil, "+442079460958"),
            ("0044 20 7946 0958", nil, "+442079460958"),
            ("020 7946 0958", "GB", "+442079460958"),
            ("07700 900123", "gb", "+447700900123"),
            ("(415) 555-0132", "US", "+14155550132"),
            ("1-415-555-0132", "US", "+14155550132"),
            ("011 33 1 23 45 67 89", "US", "+33123456789"),
            ("01 23 45 67 89", "FR", "+33123456789"),
            ("06.12.34.56.78", "FR", "+33612345678"),
            ("030 1234567", "DE", "+49301234567"),
            ("612 345 678", "ES", "+34612345678"),
            ("+1 (415) 555-0132", "GB", "+14155550132"),
        ] as [(String, String?, String)])
    func common_forms_become_e164(raw: String, region: String?, expected: String) throws {
        #expect(try PhoneNumber.normalized(raw, defaultRegion: region) == expected)
    }

    @Test(
        arguments: [
            ("", "GB"), ("   ", "GB"), ("phone me", "GB"), ("+44 20 7946 095x", nil), ("+12345", nil),
            ("+1234567890123456", nil), ("+0 123 456 789", nil), ("020 7946 0958", nil), ("123", "GB"),
            ("0207 946 09581234", "GB"), ("555 0132", "US"), ("02079460958", "XX"), ("+44\u{202E}2079460958", nil),
        ] as [(String, String?)])
    func what_cannot_be_a_phone_number_is_refused_with_a_sentence(raw: String, region: String?) {
        #expect {
            try PhoneNumber.normalized(raw, defaultRegion: region)
        } throws: { error in
            let violation = error as? RuleViolation
            return violation?.field == "phone" && (violation?.message.description.count ?? 0) > 20
        }
    }

    @Test func a_national_number_without_a_default_region_asks_for_the_country_code() {
        #expect {
            try PhoneNumber.normalized("020 7946 0958", defaultRegion: nil)
        } throws: { ($0 as? RuleViolation)?.message.description.contains("country code") == true }
    }

    @Test func masking_keeps_the_last_four_digits() {
        #expect(PhoneNumber.masked("+442079460958") == "••• 0958")
    }
}
