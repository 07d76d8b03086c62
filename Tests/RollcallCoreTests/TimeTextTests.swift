import Foundation
import Testing

@testable import RollcallCore

/// Moments written in a course's zone: Paris, Los Angeles and Kolkata, on both sides of a clock change.
@Suite("Time text", .timeLimit(.minutes(5)))
struct TimeTextTests {
    static func moment(_ text: String) -> Date { RFC3339.moment(text)! }

    let paris = TimeText(zoneIdentifier: "Europe/Paris")
    let losAngeles = TimeText(zoneIdentifier: "America/Los_Angeles")
    let kolkata = TimeText(zoneIdentifier: "Asia/Kolkata")

    @Test func one_moment_in_three_zones() {
        let lecture = Self.moment("2027-01-26T08:00:00Z")
        #expect(paris.moment(lecture) == "26 Jan 2027 at 9:00 AM")
        #expect(losAngeles.moment(lecture) == "26 Jan 2027 at 12:00 AM")
        #expect(kolkata.moment(lecture) == "26 Jan 2027 at 1:30 PM")
        #expect(paris.time(lecture) == "9:00 AM" && paris.day(lecture) == "26 Jan 2027")
        #expect(paris.zoneName(at: lecture) == "GMT+1")
        #expect(kolkata.zoneName(at: lecture) == "GMT+5:30")
        #expect(losAngeles.timeWithZone(lecture) == "12:00 AM GMT-8")
        #expect(paris.momentWithZone(lecture) == "26 Jan 2027 at 9:00 AM GMT+1")
    }

    @Test func a_weekly_lecture_keeps_its_local_hour_across_the_clock_change() {
        // Paris leaves summer time on 25 October 2026: 9:00 is 07:00 UTC before and 08:00 UTC after.
        #expect(paris.timeWithZone(Self.moment("2026-10-20T07:00:00Z")) == "9:00 AM GMT+2")
        #expect(paris.timeWithZone(Self.moment("2026-10-27T08:00:00Z")) == "9:00 AM GMT+1")
        // Los Angeles a week later, on 1 November; Kolkata has no clock change.
        #expect(losAngeles.timeWithZone(Self.moment("2026-10-27T16:00:00Z")) == "9:00 AM GMT-7")
        #expect(losAngeles.timeWithZone(Self.moment("2026-11-03T17:00:00Z")) == "9:00 AM GMT-8")
        #expect(kolkata.timeWithZone(Self.moment("2026-10-20T03:30:00Z")) == "9:00 AM GMT+5:30")
        #expect(kolkata.timeWithZone(Self.moment("2026-11-03T03:30:00Z")) == "9:00 AM GMT+5:30")
    }

    @Test func the_day_is_the_zones_day() {
        let lateInParis = Self.moment("2027-03-01T23:30:00Z")
        #expect(paris.isoDay(lateInParis) == "2027-03-02")
        #expect(losAngeles.isoDay(lateInParis) == "2027-03-01")
        #expect(paris.day(lateInParis) == "2 Mar 2027")
    }

    @Test func durations_round_down_to_the_minute() {
        #expect(paris.duration(0) == "under a minute")
        #expect(paris.duration(59) == "under a minute")
        #expect(paris.duration(60) == "1 min")
        #expect(paris.duration(45 * 60 + 59) == "45 min")
        #expect(paris.duration(3600) == "1 h")
        #expect(paris.duration(3900) == "1 h 5 min")
        #expect(paris.duration(-5) == "under a minute")
    }

    @Test func an_unknown_zone_is_utc() {
        let text = TimeText(zoneIdentifier: "Mars/Olympus")
        #expect(text.zone.identifier == "UTC" || text.zone.identifier == "GMT")
        #expect(text.zoneName(at: Self.moment("2027-01-26T08:00:00Z")) == "GMT")
    }
}

/// Names sorted as a language expects, not by their bytes.
@Suite("Collation", .timeLimit(.minutes(5)))
struct CollationTests {
    let names = ["Björn Schröder", "Björn Ångström", "bob", "Zoë", "Émile", "Eve", "anna", "Åsa"]

    @Test func english_sorts_accented_letters_with_their_base_letter_and_case_second() {
        #expect(
            Collation.english.sorted(names, name: { $0 }, id: { _ in 0 })
                == ["anna", "Åsa", "Björn Ångström", "Björn Schröder", "bob", "Émile", "Eve", "Zoë"])
        #expect(names.sorted() != Collation.english.sorted(names, name: { $0 }, id: { _ in 0 }), "bytes differ")
    }

    @Test func swedish_puts_a_ring_after_z() {
        let swedish = Collation(locale: Locale(identifier: "sv"))
        #expect(swedish.sorted(names, name: { $0 }, id: { _ in 0 }).last == "Åsa")
        #expect(swedish.precedes("Björn Schröder", "Björn Ångström"))
    }

    @Test func the_same_name_keeps_the_order_of_ids() {
        let people = [(id: Int64(3), name: "Li Wei"), (id: 1, name: "Li Wei"), (id: 2, name: "li wei")]
        #expect(Collation.english.sorted(people, name: \.name, id: \.id).map(\.id) == [2, 1, 3])
    }
}
