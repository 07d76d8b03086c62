import Foundation

/// How Rollcall writes moments for people: one function for each kind of value, all in one time zone (a course's,
/// or the person's where no course is involved) and one locale, so that a page, a letter and an export agree.
public struct TimeText: Sendable, Equatable {
    public let zone: TimeZone
    public let locale: Locale

    /// English as Rollcall's pages write it: "15 Jan 2027 at 9:00 AM".
    public static let english = Locale(identifier: "en_001")

    public init(zone: TimeZone, locale: Locale = TimeText.english) {
        self.zone = zone
        self.locale = locale
    }

    /// In the zone named by an IANA identifier, or in UTC when the system does not know it.
    public init(zoneIdentifier: String, locale: Locale = TimeText.english) {
        self.init(zone: TimeZone(identifier: zoneIdentifier) ?? TimeZone(identifier: "UTC")!, locale: locale)
    }

    private var style: Date.FormatStyle { Date.FormatStyle(locale: locale, timeZone: zone) }

    /// Newer ICU puts a narrow no-break space before "AM", older ICU (and some browsers) a space: always a space, so
    /// that the server's rows and the ones a page draws live read alike, and searches find them.
    private func spaced(_ text: String) -> String { text.replacingOccurrences(of: "\u{202F}", with: " ") }

    /// A day: "15 Jan 2027".
    public func day(_ date: Date) -> String {
        spaced(date.formatted(style.day().month(.abbreviated).year()))
    }

    /// A time of day: "9:00 AM".
    public func time(_ date: Date) -> String {
        spaced(date.formatted(style.hour().minute()))
    }

    /// A day and time: "15 Jan 2027 at 9:00 AM".
    public func moment(_ date: Date) -> String {
        spaced(date.formatted(style.day().month(.abbreviated).year().hour().minute()))
    }

    /// The zone's name at `date`, as its offset from UTC: "GMT+1", "GMT+5:30", "GMT-7", "GMT".
    public func zoneName(at date: Date) -> String {
        date.formatted(style.timeZone(.specificName(.short)))
    }

    /// A time with its zone, where the reader could be elsewhere: "9:00 AM GMT+1".
    public func timeWithZone(_ date: Date) -> String {
        "\(time(date)) \(zoneName(at: date))"
    }

    /// A day and time with its zone: "15 Jan 2027 at 9:00 AM GMT+1".
    public func momentWithZone(_ date: Date) -> String {
        "\(moment(date)) \(zoneName(at: date))"
    }

    /// A day as date fields take it, in the zone: "2027-01-15".
    public func isoDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// A length of time, rounded down to the minute: "45 min", "1 h", "1 h 5 min", "under a minute".
    public func duration(_ seconds: TimeInterval) -> String {
        let minutes = Int((max(0, seconds) / 60).rounded(.down))
        switch (minutes / 60, minutes % 60) {
        case (0, 0): return "under a minute"
        case (0, let rest): return "\(rest) min"
        case (let hours, 0): return "\(hours) h"
        case (let hours, let rest): return "\(hours) h \(rest) min"
        }
    }
}
