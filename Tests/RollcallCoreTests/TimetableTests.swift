import Foundation
import RollcallCore
import Testing

@Suite("Timetable", .timeLimit(.minutes(5)))
struct TimetableTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    @Test func mondays_at_nine_keep_their_local_time_across_the_autumn_clock_change() throws {
        let slot = TimetableSlot(weekday: 1, time: "09:00", minutes: 90)
        let starts = try slot.starts(
            from: Self.date("2026-10-15T00:00:00Z"), until: Self.date("2026-11-03T00:00:00Z"), in: Self.berlin)
        #expect(
            starts == [
                Self.date("2026-10-19T07:00:00Z"),  // summer time, UTC+2
                Self.date("2026-10-26T08:00:00Z"),  // winter time, UTC+1
                Self.date("2026-11-02T08:00:00Z"),
            ])
    }

    @Test func the_first_and_last_days_are_included_and_sunday_is_seven() throws {
        let sunday = TimetableSlot(weekday: 7, time: "18:30", minutes: 60)
        let starts = try sunday.starts(
            from: Self.date("2026-11-01T18:30:00Z"), until: Self.date("2026-11-08T10:00:00Z"),
            in: TimeZone(identifier: "UTC")!)
        #expect(starts == [Self.date("2026-11-01T18:30:00Z"), Self.date("2026-11-08T18:30:00Z")])
    }

    @Test func a_time_the_spring_clock_change_skips_moves_an_hour_later() throws {
        let slot = TimetableSlot(weekday: 7, time: "2:30", minutes: 60)
        let starts = try slot.starts(
            from: Self.date("2027-03-14T00:00:00Z"), until: Self.date("2027-03-14T23:00:00Z"), in: Self.newYork)
        #expect(starts == [Self.date("2027-03-14T07:30:00Z")], "03:30 EDT, the wall time an hour on")
    }

    @Test func a_class_keeps_its_day_and_wall_clock_time_in_a_new_zone() {
        let utc = TimeZone(identifier: "UTC")!
        let paris = TimeZone(identifier: "Europe/Paris")!
        // Tuesday 08:15 in UTC is Tuesday 08:15 in Paris: 07:15 UTC in winter, 06:15 UTC in summer.
        #expect(
            TimetableSlot.sameWallClock(Self.date("2027-01-05T08:15:00Z"), from: utc, to: paris)
                == Self.date("2027-01-05T07:15:00Z"))
        #expect(
            TimetableSlot.sameWallClock(Self.date("2027-06-08T08:15:00Z"), from: utc, to: paris)
                == Self.date("2027-06-08T06:15:00Z"))
        // A day's first instant stays that day's first instant, a day that New York's clocks shift included.
        #expect(
            TimetableSlot.sameWallClock(Self.date("2027-03-13T23:00:00Z"), from: paris, to: Self.newYork)
                == Self.date("2027-03-14T05:00:00Z"))
        // 02:30 on the night New York skips it is 03:30 there, as the timetable takes it.
        #expect(
            TimetableSlot.sameWallClock(Self.date("2027-03-14T02:30:00Z"), from: utc, to: Self.newYork)
                == Self.date("2027-03-14T07:30:00Z"))
    }

    @Test func a_time_the_autumn_clock_change_repeats_is_taken_at_its_first() throws {
        let slot = TimetableSlot(weekday: 7, time: "02:30", minutes: 60)
        let starts = try slot.starts(
            from: Self.date("2026-10-25T00:00:00Z"), until: Self.date("2026-10-25T12:00:00Z"), in: Self.berlin)
        #expect(starts == [Self.date("2026-10-25T00:30:00Z")], "02:30 summer time, the first of the two")
    }

    @Test(arguments: ["9", "24:00", "09:60", "9:5", "ab:cd", "09:00:00", "", " 9:00", "٠٩:٠٠", "-1:00"])
    func times_that_are_not_hours_and_minutes_are_refused(time: String) {
        #expect(throws: RuleViolation.self) { try TimetableSlot(weekday: 1, time: time, minutes: 60).validated() }
        do {
            _ = try TimetableSlot(weekday: 1, time: time, minutes: 60).validated()
        } catch {
            #expect(error.code == "invalid_time")
        }
    }

    @Test func weekdays_minutes_and_terms_out_of_range_are_refused_with_their_field() {
        let cases: [(TimetableSlot, String)] = [
            (TimetableSlot(weekday: 0, time: "09:00", minutes: 60), "invalid_weekday"),
            (TimetableSlot(weekday: 8, time: "09:00", minutes: 60), "invalid_weekday"),
            (TimetableSlot(weekday: 1, time: "09:00", minutes: 4), "invalid_minutes"),
            (TimetableSlot(weekday: 1, time: "09:00", minutes: 721), "invalid_minutes"),
        ]
        for (slot, code) in cases {
            do {
                _ = try slot.validated()
                Issue.record("\(slot) was accepted")
            } catch {
                #expect(error.code == code)
            }
        }
        let slot = TimetableSlot(weekday: 1, time: "09:00", minutes: 60)
        let start = Self.date("2026-09-01T00:00:00Z")
        for (until, code) in [
            (start.addingTimeInterval(-86_400), "invalid_until"),
            (start.addingTimeInterval(400 * 86_400), "invalid_until"),
        ] {
            do {
                _ = try slot.starts(from: start, until: until, in: Self.berlin)
                Issue.record("a term to \(until) was accepted")
            } catch {
                #expect(error.code == code)
            }
        }
    }

    @Test func a_whole_term_has_one_start_a_week_each_at_the_local_time() throws {
        for weekday in 1...7 {
            let slot = TimetableSlot(weekday: weekday, time: "10:15", minutes: 50)
            let starts = try slot.starts(
                from: Self.date("2026-09-01T00:00:00Z"), until: Self.date("2027-01-31T00:00:00Z"), in: Self.berlin)
            #expect((21...22).contains(starts.count))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = Self.berlin
            for start in starts {
                let parts = calendar.dateComponents([.weekday, .hour, .minute], from: start)
                #expect(parts.weekday == weekday % 7 + 1 && parts.hour == 10 && parts.minute == 15)
            }
            #expect(zip(starts, starts.dropFirst()).allSatisfy { $1.timeIntervalSince($0) >= 6.9 * 86_400 })
        }
    }
}
