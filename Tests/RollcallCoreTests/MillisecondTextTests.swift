import Foundation
import Testing

@testable import RollcallCore

@Suite("Millisecond text", .timeLimit(.minutes(5)))
struct MillisecondTextTests {
    @Test func dates_are_written_as_foundations_iso_8601_style_writes_them() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var random = SeededRandom(seed: 20_261_123)
        var dates = [0, -0.0005, 951_782_400, 1_709_164_799.9999, 4_102_444_800, -86_400.25, 253_402_300_799.999]
            .map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<20_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: -2_000_000_000...6_000_000_000, using: &random)))
        }
        var roundedUp = 0
        for date in dates where date.millisecondText != date.formatted(style) {
            // Taken to the nearest microsecond first: only a date within half a microsecond below a millisecond is
            // written as the next one.
            let next = date.addingTimeInterval(0.000_000_5).formatted(style)
            #expect(date.millisecondText == next, "\(date.timeIntervalSince1970)")
            roundedUp += 1
        }
        #expect(roundedUp < dates.count / 500, "\(roundedUp) of \(dates.count) dates written as the next millisecond")
    }

    @Test func a_date_read_from_its_text_is_written_as_that_text() {
        var random = SeededRandom(seed: 20_261_201)
        var texts = ["2026-12-01T09:35:29.712Z", "2026-09-14T12:00:00.001Z", "1999-12-31T23:59:59.999Z"]
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -2_000_000_000...6_000_000_000, using: &random))
            texts.append(date.millisecondText)
        }
        for text in texts {
            #expect(RFC3339.moment(text)?.millisecondText == text)
        }
    }
}
