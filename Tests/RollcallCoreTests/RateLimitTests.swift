import Foundation
import Testing

@testable import RollcallCore

@Suite("Rate limits", .timeLimit(.minutes(5)))
struct RateLimitTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let limit = RateLimit(limit: 3, window: 60)

    @Test func the_first_events_of_a_window_are_admitted_and_counted() {
        var count: RateLimit.Count?
        for expected in 1...3 {
            let answer = limit.admit(count, now: start.addingTimeInterval(Double(expected)))
            #expect(answer.retryAfter == nil)
            #expect(answer.count == .init(count: expected, since: start.addingTimeInterval(1)))
            count = answer.count
        }
        let refused = limit.admit(count, now: start.addingTimeInterval(10))
        #expect(refused.retryAfter == 51)
        #expect(refused.count == count, "a refusal changes nothing")
    }

    @Test func a_new_window_starts_afresh() {
        let full = RateLimit.Count(count: 3, since: start)
        #expect(limit.admit(full, now: start.addingTimeInterval(59.5)).retryAfter == 1)
        let next = limit.admit(full, now: start.addingTimeInterval(60))
        #expect(next.retryAfter == nil)
        #expect(next.count == .init(count: 1, since: start.addingTimeInterval(60)))
    }
}
