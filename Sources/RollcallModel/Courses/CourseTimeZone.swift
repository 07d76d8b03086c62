import Foundation
import RollcallCore
import RollcallWords

/// A course's time zone: an IANA identifier such as `Europe/Berlin`, the server's own unless the teacher sets one.
package enum CourseTimeZone {
    /// The server's zone, for courses that name none.
    package static var serverDefault: String { TimeZone.current.identifier }

    /// The zones Foundation lists, with the server's own and UTC; other IANA names the system knows are taken too.
    package static let known: Set<String> = Set(TimeZone.knownTimeZoneIdentifiers).union([
        TimeZone.current.identifier, "UTC", "Etc/UTC",
    ])

    /// Whether `text` is an IANA zone name, such as `Asia/Kolkata`, that the system's time zone data holds;
    /// abbreviations (`EST`) and offsets (`GMT+2`) are not.
    package static func isKnown(_ text: String) -> Bool {
        if known.contains(text) { return true }
        return text.contains("/") && TimeZone(identifier: text)?.identifier == text
    }

    /// Every zone the settings form offers, `selected` among them.
    package static func choices(selected: String) -> [String] {
        known.union([selected]).sorted()
    }

    /// The identifier when it names a known zone; a 400 `invalid_time_zone` otherwise.
    package static func validated(_ text: String) throws -> String {
        guard isKnown(text) else {
            throw AppError(
                .badRequest, .invalidTimeZone,
                "“timeZone” must be an IANA time zone such as Europe/Berlin or America/New_York.")
        }
        return text
    }

    /// The zone of a new course: the one its teacher chose (the course form shows their profile's zone, else their
    /// browser's), else their profile's, else the school's (`ROLLCALL_DEFAULT_TIME_ZONE`, else the server's).
    package static func forNewCourse(chosen: String?, teacher: User, school: String) throws -> String {
        if let chosen { return try validated(chosen) }
        if let own = teacher.timeZone, isKnown(own) { return own }
        return school
    }

    /// `2026-09-01 09:05:00`: the local time in `zone`, as spreadsheets read a time (an offset after it makes it
    /// text); the column's header names the zone.
    package static func timestamp(_ date: Date, in zone: TimeZone) -> String {
        let parts = components(date, in: zone)
        return "\(day(date, in: zone)) \(two(parts.hour ?? 0)):\(two(parts.minute ?? 0)):\(two(parts.second ?? 0))"
    }

    /// `2026-09-01`: the local date in `zone`.
    package static func day(_ date: Date, in zone: TimeZone) -> String {
        let parts = components(date, in: zone)
        let year = String(parts.year ?? 0)
        return
            "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.month ?? 0))-\(two(parts.day ?? 0))"
    }

    private static func components(_ date: Date, in zone: TimeZone) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    }

    private static func two(_ number: Int) -> String { number < 10 ? "0\(number)" : String(number) }
}

extension Course {
    /// How the course's pages, letters and exports write moments: in the course's zone.
    package func timeText(in reader: Reader) -> TimeText { TimeText(zone: zone, locale: reader.locale) }
}
