import Foundation

/// When the weekly absence notices of a course go out: Mondays at 08:00 in the course's time zone.
public enum AbsenceNoticeSchedule {
    /// ISO weekday of the notices: Monday.
    public static let weekday = 1
    public static let hour = 8

    /// The latest Monday 08:00, local time in `timeZone`, at or before `now`: the week's notices are due from then.
    public static func latestDue(atOrBefore now: Date, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        let day = calendar.startOfDay(for: now)
        // ISO weekdays count from Monday; Calendar's from Sunday.
        let isoWeekday = (calendar.component(.weekday, from: day) + 5) % 7 + 1
        let monday = calendar.date(byAdding: .day, value: -(isoWeekday - weekday), to: day) ?? day
        let due = sendTime(on: monday, calendar: calendar)
        guard due > now else { return due }
        let previous = calendar.date(byAdding: .day, value: -7, to: monday) ?? monday
        return sendTime(on: previous, calendar: calendar)
    }

    /// 08:00 on `day`, or the first moment after it should a clock change skip that hour.
    static func sendTime(on day: Date, calendar: Calendar) -> Date {
        calendar.date(bySettingHour: hour, minute: 0, second: 0, of: day, matchingPolicy: .nextTime) ?? day
    }
}
