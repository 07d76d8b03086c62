import Foundation

/// Dates and moments as the API takes them (RFC 3339), read strictly: a day that the calendar has, a time within the
/// day, an offset within a day's hours, and nothing before or after. Foundation's readers roll `2026-11-31` over to
/// December, take hour 25, and drop a missing offset or trailing text; these refuse all of that.
public enum RFC3339 {
    /// A moment such as `2026-09-14T12:00:00Z` or `2026-09-14T14:00:00.250+02:00`: seconds required, a fraction of up
    /// to nine digits, and an offset (`Z` or `±HH:MM`) required, since a time without one names no moment.
    public static func moment(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, let day = civilDay(bytes[0..<10]),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(bytes[11..<13]), bytes[13] == UInt8(ascii: ":"), let minute = number(bytes[14..<16]),
            bytes[16] == UInt8(ascii: ":"), let second = number(bytes[17..<19]), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var nanoseconds = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 100_000_000
            let start = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                nanoseconds += digit * scale
                scale /= 10
                index += 1
            }
            guard (1...9).contains(index - start) else { return nil }
        }
        guard index < bytes.count else { return nil }
        let offset: Int
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
            offset = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(bytes[(index + 1)..<(index + 3)]),
                bytes[index + 3] == UInt8(ascii: ":"), let minutes = number(bytes[(index + 4)..<(index + 6)]),
                hours < 24, minutes < 60
            else { return nil }
            offset = (bytes[index] == UInt8(ascii: "+") ? 1 : -1) * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        let seconds = day * 86_400 + hour * 3600 + minute * 60 + second - offset
        return date(seconds: seconds, nanoseconds: nanoseconds)
    }

    /// The date `seconds` and `nanoseconds` after 1970 began, as near as a `Date` holds it: `.712` is held as
    /// `.71199999…`, which `millisecondText` writes back as `.712` because it takes a date to the microsecond first.
    static func date(seconds: Int, nanoseconds: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(nanoseconds) / 1_000_000_000)
    }

    /// A calendar day such as `2026-09-14`, as the start of that day in UTC; `nil` for a day the calendar does not
    /// have or anything more.
    public static func day(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, let day = civilDay(bytes[0..<10]) else { return nil }
        return Date(timeIntervalSince1970: Double(day * 86_400))
    }

    /// Days since 1970-01-01 of `YYYY-MM-DD`, checked against the proleptic Gregorian calendar.
    static func civilDay(_ bytes: ArraySlice<UInt8>) -> Int? {
        let start = bytes.startIndex
        guard bytes.count == 10, let year = number(bytes[start..<(start + 4)]), bytes[start + 4] == UInt8(ascii: "-"),
            let month = number(bytes[(start + 5)..<(start + 7)]), bytes[start + 7] == UInt8(ascii: "-"),
            let day = number(bytes[(start + 8)..<(start + 10)]), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return bytes.isEmpty ? nil : value
    }
}
