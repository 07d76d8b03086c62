import Foundation
import RollcallCore
import Testing

@Suite("Absence notice schedule", .timeLimit(.minutes(5)))
struct AbsenceNoticeScheduleTests {
    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    @Test(
        arguments: [
            // UTC: a Wednesday goes back to Monday; Monday before eight to the Monday before; at eight, that Monday.
            ("2026-11-25T10:00:00Z", "UTC", "2026-11-23T08:00:00Z"),
            ("2026-11-23T07:59:59Z", "UTC", "2026-11-16T08:00:00Z"),
            ("2026-11-23T08:00:00Z", "UTC", "2026-11-23T08:00:00Z"),
            ("2026-11-29T23:59:00Z", "UTC", "2026-11-23T08:00:00Z"),
            // Berlin in winter (UTC+1) and in summer (UTC+2), and the Monday after each clock change.
            ("2026-11-25T10:00:00Z", "Europe/Berlin", "2026-11-23T07:00:00Z"),
            ("2026-07-01T10:00:00Z", "Europe/Berlin", "2026-06-29T06:00:00Z"),
            ("2026-03-30T06:30:00Z", "Europe/Berlin", "2026-03-30T06:00:00Z"),
            ("2026-03-30T05:59:00Z", "Europe/Berlin", "2026-03-23T07:00:00Z"),
            ("2026-10-26T07:00:00Z", "Europe/Berlin", "2026-10-26T07:00:00Z"),
            // West of UTC, Monday 08:00 local is already Monday afternoon in UTC; Sunday night local is Monday in UTC.
            ("2026-11-24T02:00:00Z", "America/Los_Angeles", "2026-11-23T16:00:00Z"),
            ("2026-11-23T07:00:00Z", "America/Los_Angeles", "2026-11-16T16:00:00Z"),
            // East of UTC, Monday 08:00 in Auckland is Sunday evening in UTC.
            ("2026-11-22T19:30:00Z", "Pacific/Auckland", "2026-11-22T19:00:00Z"),
        ] as [(String, String, String)])
    func the_notices_are_due_from_the_latest_monday_eight_local(now: String, zone: String, due: String) {
        #expect(
            AbsenceNoticeSchedule.latestDue(atOrBefore: Self.date(now), timeZone: TimeZone(identifier: zone)!)
                == Self.date(due))
    }

    @Test func every_moment_of_a_year_is_due_from_a_monday_eight_within_the_last_week() {
        let zone = TimeZone(identifier: "Europe/London")!
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = zone
        var now = Self.date("2026-01-01T00:17:00Z")
        while now < Self.date("2027-01-01T00:00:00Z") {
            let due = AbsenceNoticeSchedule.latestDue(atOrBefore: now, timeZone: zone)
            #expect(due <= now && now.timeIntervalSince(due) < 7 * 86_400 + 3600)
            #expect(calendar.component(.weekday, from: due) == 2 && calendar.component(.hour, from: due) == 8)
            now += 3 * 3600 + 7 * 60
        }
    }
}
