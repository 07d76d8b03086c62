import Foundation
import Testing

@testable import RollcallCore

/// The shared minutes, the encounters and the ranking of an exposure report, and the window it may cover.
@Suite("Exposure", .timeLimit(.minutes(5)))
struct ExposureTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }

    func session(_ id: Int64, opens: Double = 0, ends: Double = 60, _ present: [Exposure.Presence]) -> Exposure.Session
    {
        Exposure.Session(id: id, openedAt: at(opens), endedAt: at(ends), present: present)
    }

    func person(_ id: Int64, _ name: String, at minutes: Double?) -> Exposure.Presence {
        Exposure.Presence(personID: id, name: name, checkedInAt: minutes.map(at))
    }

    @Test func shared_minutes_run_from_the_later_check_in_to_the_end() {
        let s = session(1, [])
        #expect(Exposure.sharedMinutes(person(1, "A", at: 5), person(2, "B", at: 20), in: s) == 40)
        #expect(Exposure.sharedMinutes(person(2, "B", at: 20), person(1, "A", at: 5), in: s) == 40, "symmetric")
        #expect(Exposure.sharedMinutes(person(1, "A", at: 0), person(2, "B", at: 0), in: s) == 60)
        #expect(Exposure.sharedMinutes(person(1, "A", at: 10), person(2, "B", at: 10), in: s) == 50, "same time")
    }

    @Test func shared_minutes_round_down_to_whole_minutes() {
        let s = session(1, [])
        #expect(Exposure.sharedMinutes(person(1, "A", at: 0), person(2, "B", at: 30.5), in: s) == 29)
        #expect(Exposure.sharedMinutes(person(1, "A", at: 0), person(2, "B", at: 59.99), in: s) == 0)
    }

    @Test func a_mark_by_hand_counts_from_the_opening() {
        let s = session(1, opens: 0, ends: 45, [])
        #expect(Exposure.sharedMinutes(person(1, "A", at: nil), person(2, "B", at: nil), in: s) == 45)
        #expect(Exposure.sharedMinutes(person(1, "A", at: nil), person(2, "B", at: 15), in: s) == 30)
        #expect(Exposure.arrival(person(1, "A", at: nil), in: s) == at(0))
    }

    @Test func arrivals_are_held_inside_the_session() {
        let s = session(1, opens: 10, ends: 40, [])
        #expect(Exposure.arrival(person(1, "A", at: 0), in: s) == at(10), "before the opening counts from it")
        #expect(Exposure.arrival(person(1, "A", at: 50), in: s) == at(40), "after the end counts as the end")
        #expect(Exposure.sharedMinutes(person(1, "A", at: 0), person(2, "B", at: 0), in: s) == 30)
        #expect(Exposure.sharedMinutes(person(1, "A", at: 50), person(2, "B", at: 10), in: s) == 0)
        let inverted = session(2, opens: 30, ends: 20, [])
        #expect(Exposure.sharedMinutes(person(1, "A", at: 30), person(2, "B", at: 30), in: inverted) == 0)
    }

    @Test func encounters_list_only_the_persons_sessions_with_everyone_else_ranked() {
        let sessions = [
            session(2, opens: 120, ends: 180, [person(1, "Ann", at: 130), person(3, "Cid", at: 120)]),
            session(1, [person(1, "Ann", at: 0), person(2, "Bea", at: 30), person(3, "Cid", at: 10)]),
            session(3, opens: 240, ends: 300, [person(2, "Bea", at: 240), person(3, "Cid", at: 240)]),
        ]
        let encounters = Exposure.encounters(of: 1, in: sessions)
        #expect(encounters.map(\.sessionID) == [1, 2], "oldest first, and session 3 without Ann is left out")
        #expect(
            encounters[0].contacts == [
                .init(personID: 3, name: "Cid", minutes: 50), .init(personID: 2, name: "Bea", minutes: 30),
            ])
        #expect(encounters[1].contacts == [.init(personID: 3, name: "Cid", minutes: 50)])
        #expect(Exposure.encounters(of: 9, in: sessions).isEmpty)
    }

    @Test func a_session_with_only_the_person_is_an_encounter_without_contacts() {
        let encounters = Exposure.encounters(of: 1, in: [session(1, [person(1, "Ann", at: 0)])])
        #expect(encounters == [.init(sessionID: 1, contacts: [])])
        #expect(Exposure.ranking(encounters).isEmpty)
    }

    @Test func a_person_listed_twice_in_a_session_counts_once() {
        let encounters = Exposure.encounters(
            of: 1, in: [session(1, [person(1, "Ann", at: 0), person(2, "Bea", at: 0), person(2, "Bea", at: 0)])])
        #expect(encounters[0].contacts.count == 1)
    }

    @Test func ranking_adds_minutes_and_sessions_and_breaks_ties_by_sessions_then_name_then_id() {
        let encounters: [Exposure.Encounter] = [
            .init(
                sessionID: 1,
                contacts: [
                    .init(personID: 2, name: "Bea", minutes: 30), .init(personID: 3, name: "Cid", minutes: 20),
                    .init(personID: 4, name: "Dee", minutes: 40), .init(personID: 6, name: "Abe", minutes: 5),
                ]),
            .init(
                sessionID: 2,
                contacts: [
                    .init(personID: 3, name: "Cid", minutes: 20), .init(personID: 5, name: "Eve", minutes: 0),
                    .init(personID: 7, name: "Abe", minutes: 5),
                ]),
        ]
        #expect(
            Exposure.ranking(encounters) == [
                .init(personID: 3, name: "Cid", totalMinutes: 40, sessions: 2),
                .init(personID: 4, name: "Dee", totalMinutes: 40, sessions: 1),
                .init(personID: 2, name: "Bea", totalMinutes: 30, sessions: 1),
                .init(personID: 6, name: "Abe", totalMinutes: 5, sessions: 1),
                .init(personID: 7, name: "Abe", totalMinutes: 5, sessions: 1),
                .init(personID: 5, name: "Eve", totalMinutes: 0, sessions: 1),
            ])
        #expect(Exposure.ranking([]).isEmpty)
    }

    @Test func the_window_defaults_to_fourteen_days_back_from_now() throws {
        let window = try ExposureWindow.make(until: nil, days: nil, retentionDays: 30, now: t0)
        #expect(window == ExposureWindow(from: t0.addingTimeInterval(-14 * 86_400), until: t0, days: 14))
        let short = try ExposureWindow.make(until: nil, days: nil, retentionDays: 7, now: t0)
        #expect(short.days == 7, "never past the retention period")
    }

    @Test func the_window_reaches_exactly_to_the_retention_period_and_no_further() throws {
        let day = 86_400.0
        #expect(try ExposureWindow.make(until: nil, days: 30, retentionDays: 30, now: t0).from == at(-30 * 24 * 60))
        let earlier = t0.addingTimeInterval(-10 * day)
        #expect(try ExposureWindow.make(until: earlier, days: 20, retentionDays: 30, now: t0).from == at(-30 * 24 * 60))
        #expect(throws: ExposureWindow.Refusal.beyondRetention(days: 30)) {
            try ExposureWindow.make(until: earlier, days: 21, retentionDays: 30, now: t0)
        }
        #expect(throws: ExposureWindow.Refusal.beyondRetention(days: 30)) {
            try ExposureWindow.make(until: t0.addingTimeInterval(-1), days: 30, retentionDays: 30, now: t0)
        }
    }

    @Test func the_window_refuses_bad_days_and_the_future() {
        for days in [0, -1, 31] {
            #expect(throws: ExposureWindow.Refusal.days(maximum: 30)) {
                try ExposureWindow.make(until: nil, days: days, retentionDays: 30, now: t0)
            }
        }
        #expect(throws: ExposureWindow.Refusal.future) {
            try ExposureWindow.make(until: t0.addingTimeInterval(1), days: 1, retentionDays: 30, now: t0)
        }
        #expect(ExposureWindow.Refusal.days(maximum: 30).code.rawValue == "invalid_days")
        #expect(ExposureWindow.Refusal.future.code.rawValue == "invalid_until")
        #expect(ExposureWindow.Refusal.beyondRetention(days: 30).code.rawValue == "window_beyond_retention")
        #expect(ExposureWindow.Refusal.beyondRetention(days: 30).message.description.contains("30 days"))
    }

    @Test func retention_cuts_off_the_period_before_now() {
        #expect(Retention.cutoff(now: t0, days: 30) == t0.addingTimeInterval(-30 * 86_400))
        #expect(Retention.defaultDays == 30)
    }

    @Test func a_room_label_is_trimmed_kept_and_checked() throws {
        #expect(try SessionSettingsDraft(room: "  B204 ").validated().room == "B204")
        #expect(try SessionSettingsDraft(room: "   ").validated().room == nil)
        #expect(try SessionSettingsDraft().validated().room == nil)
        #expect(throws: RuleViolation.self) {
            try SessionSettingsDraft(room: String(repeating: "x", count: 81)).validated()
        }
        let old = #"{"mode":"qr","period":5,"grace":1,"openMinutes":60,"allowTyping":false,"allowedNetworks":[]}"#
        #expect(try JSONDecoder().decode(SessionSettings.self, from: Data(old.utf8)).room == nil, "older rows read")
    }
}
