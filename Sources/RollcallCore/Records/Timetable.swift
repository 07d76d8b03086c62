import Foundation
import RollcallProtocol

/// A course's weekly meeting: a weekday and a local time, for a number of minutes, over a term.
public struct TimetableSlot: Codable, Equatable, Sendable {
    /// ISO weekday: 1 is Monday, 7 is Sunday.
    public var weekday: Int
    /// Local time of day, `HH:MM` on a 24-hour clock.
    public var time: String
    public var minutes: Int

    public static let weekdays = 1...7
    public static let minutesRange = 5...720
    /// A term longer than this is more likely a typing mistake than a term.
    public static let longestTerm: TimeInterval = 366 * 86_400
    /// Weekly slots one course may have: a full week of lectures, labs and tutorials fits.
    public static let perCourse = 20

    public init(weekday: Int, time: String, minutes: Int) {
        self.weekday = weekday
        self.time = time
        self.minutes = minutes
    }

    /// The slot, refused unless the weekday, the time and the minutes make sense.
    public func validated() throws(RuleViolation) -> TimetableSlot {
        guard Self.weekdays.contains(weekday) else {
            throw RuleViolation(field: "weekday", message: "Give the weekday as 1 (Monday) to 7 (Sunday).")
        }
        guard clock != nil else {
            throw RuleViolation(field: "time", message: "Give the time as hours and minutes, such as 09:15 or 14:00.")
        }
        guard Self.minutesRange.contains(minutes) else {
            throw RuleViolation(field: "minutes", message: "A class lasts 5 to 720 minutes.")
        }
        return self
    }

    /// Hours and minutes, or `nil` unless `time` is `H:MM` or `HH:MM` within a day.
    var clock: (hour: Int, minute: Int)? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    /// Every start of this slot from the day of `from` to the day of `until`, both included, at its local time in
    /// `zone`, oldest first. A time that a clock change skips is taken as the same wall time an hour later, as a
    /// calendar would; a time that happens twice is taken at its first.
    public func starts(from: Date, until: Date, in zone: TimeZone) throws(RuleViolation) -> [Date] {
        let slot = try validated()
        guard until >= from else {
            throw RuleViolation(field: "until", message: "The term must end after it starts.")
        }
        guard until.timeIntervalSince(from) <= Self.longestTerm else {
            throw RuleViolation(field: "until", message: "A term is at most a year: check the dates.")
        }
        guard let (hour, minute) = slot.clock else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // ISO weekday 1 (Monday) is the Gregorian calendar's 2.
        let gregorianWeekday = slot.weekday % 7 + 1
        var starts: [Date] = []
        var day = calendar.startOfDay(for: from)
        let lastDay = calendar.startOfDay(for: until)
        while day <= lastDay {
            if calendar.component(.weekday, from: day) == gregorianWeekday {
                starts.append(Self.instant(hour: hour, minute: minute, on: day, in: calendar))
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return starts
    }

    /// The instant a wall clock in `calendar`'s zone shows `hour:minute` on the day starting at `day`. Worked out
    /// from the zone's offsets rather than left to the calendar, whose handling of a skipped hour differs between
    /// platforms.
    static func instant(hour: Int, minute: Int, on day: Date, in calendar: Calendar) -> Date {
        let zone = calendar.timeZone
        let elapsed = day.addingTimeInterval(Double(hour * 3600 + minute * 60))
        let shift = zone.secondsFromGMT(for: elapsed) - zone.secondsFromGMT(for: day)
        let adjusted = elapsed.addingTimeInterval(-Double(shift))
        let wall = calendar.dateComponents([.hour, .minute], from: adjusted)
        // No such wall time that day (the clock skipped it): the elapsed time lands an hour on, as calendars do.
        return wall.hour == hour && wall.minute == minute ? adjusted : elapsed
    }
}

extension TimetableSlot {
    /// The starts a new weekly class schedules: by default only the classes not over at `now`, since a timetable set
    /// up mid-term would otherwise add every week since the term began as a class nobody came to. `pastWeeks`, asked
    /// of the teacher, keeps them all (to record them afterwards). A term that has nothing left is refused rather
    /// than added empty.
    public static func toSchedule(
        _ starts: [Date], minutes: Int, pastWeeks: Bool, now: Date
    ) throws(RuleViolation) -> [Date] {
        if pastWeeks { return starts }
        let coming = starts.filter { $0.addingTimeInterval(Double(minutes) * 60) > now }
        guard coming.isEmpty && !starts.isEmpty else { return coming }
        throw RuleViolation(
            field: "until",
            message: "Every class of this term is over. Check the dates, or choose to schedule the weeks already past.")
    }

    /// The instant that shows, in `new`, the day and wall-clock time that `date` shows in `old`: a weekly class at
    /// 08:15 stays at 08:15 when its course changes zone. A time the new zone's clock skips is taken an hour on, as
    /// `starts` takes it.
    public static func sameWallClock(_ date: Date, from old: TimeZone, to new: TimeZone) -> Date {
        var before = Calendar(identifier: .gregorian)
        before.timeZone = old
        let wall = before.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        var after = Calendar(identifier: .gregorian)
        after.timeZone = new
        guard let day = after.date(from: DateComponents(year: wall.year, month: wall.month, day: wall.day)) else {
            return date
        }
        return instant(hour: wall.hour ?? 0, minute: wall.minute ?? 0, on: after.startOfDay(for: day), in: after)
            .addingTimeInterval(Double(wall.second ?? 0))
    }
}

/// What a course's timetable may schedule in all, so that a course page and its lists stay readable.
public enum Timetable {
    /// Sessions not yet held that timetables may have scheduled in one course: a year of eight classes a week.
    public static let sessionsPerCourse = 420

    /// Why a slot cannot be added, or `nil` when it can.
    ///
    /// - Parameters:
    ///   - slots: the course's slots so far.
    ///   - scheduled: the course's sessions not yet held that timetables scheduled.
    ///   - adding: the sessions the new slot would schedule.
    public static func refusal(slots: Int, scheduled: Int, adding: Int) -> Refusal? {
        if slots >= TimetableSlot.perCourse { return .full }
        if scheduled + adding > sessionsPerCourse {
            return .tooManySessions(room: max(0, sessionsPerCourse - scheduled))
        }
        return nil
    }

    public enum Refusal: Error, Equatable, Sendable {
        case full
        case tooManySessions(room: Int)

        public var code: ErrorCode {
            switch self {
            case .full: .timetableFull
            case .tooManySessions: .tooManySessions
            }
        }

        public var message: Phrase {
            switch self {
            case .full:
                "A course has at most \(TimetableSlot.perCourse) weekly classes. Remove one to add another."
            case .tooManySessions(let room):
                "A course's timetable schedules at most \(Timetable.sessionsPerCourse) sessions to come; this class would go past that (\(room) more fit). Shorten its term, or remove another class."
            }
        }
    }
}
