import Foundation
import RollcallCore
import Testing

@Suite("RFC 3339 dates", .timeLimit(.minutes(5)))
struct RFC3339Tests {
    @Test(arguments: [
        ("2026-09-14T12:00:00Z", 1_789_387_200.0),
        ("2026-09-14T14:00:00+02:00", 1_789_387_200.0),
        ("2026-09-14t12:00:00z", 1_789_387_200.0),
        ("2026-09-14T12:00:00.250Z", 1_789_387_200.25),
        ("2026-09-14T06:30:00-05:30", 1_789_387_200.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00Z", 0.0),
    ])
    func moments_are_read(text: String, seconds: Double) {
        #expect(RFC3339.moment(text)?.timeIntervalSince1970 == seconds)
    }

    @Test func moments_agree_with_foundation_over_a_year_of_hours() throws {
        for hour in stride(from: 0, to: 366 * 24, by: 7) {
            let date = Date(timeIntervalSince1970: 1_767_225_600 + Double(hour) * 3600)
            #expect(RFC3339.moment(date.ISO8601Format()) == date)
        }
    }

    @Test(arguments: [
        "2026-11-31T00:00:00Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
        "2026-11-23T25:00:00Z", "2026-11-23T12:61:00Z", "2026-11-23T12:00:60Z", "2026-11-23T12:00:00",
        "2026-11-23T12:00:00+25:00", "2026-11-23T12:00:00+02:60", "2026-11-23T12:00:00Zxyz", "2026-11-23xyz",
        "2026-11-23T12:00Z", "2026-11-23T12:00:00.Z", "2026-11-23T12:00:00.1234567890Z", "2026-11-23 12:00:00Z",
        " 2026-11-23T12:00:00Z", "2026-11-23", "", "yesterday", "+2026-11-23T12:00:00Z", "2026-1-23T12:00:00Z",
    ])
    func anything_else_is_no_moment(text: String) {
        #expect(RFC3339.moment(text) == nil)
    }

    @Test func days_are_read_strictly() {
        #expect(RFC3339.day("2026-09-14")?.timeIntervalSince1970 == 1_789_344_000)
        #expect(RFC3339.day("2024-02-29") != nil)
        for bad in ["2026-11-31", "2026-02-29", "2026-11-23xyz", "2026-11-23T00:00:00Z", "26-11-23", "2026-11-3"] {
            #expect(RFC3339.day(bad) == nil, "\(bad)")
        }
    }
}
