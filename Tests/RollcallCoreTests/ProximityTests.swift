import Foundation
import RollcallProtocol
import Testing

@testable import RollcallCore

/// Pseudo-IDs' windows, what an upload may hold, minutes of proximity, and how phone contacts join the ranking.
@Suite("Proximity", .timeLimit(.minutes(5)))
struct ProximityTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // a window start: 1_800_000_000 is a multiple of 300
    let id = String(repeating: "ab", count: 16)

    func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }

    func encounter(_ first: Double, _ last: Double, signal: Int = -60, heard: String? = nil) -> Proximity.Encounter {
        Proximity.Encounter(heard: heard ?? id, firstSeen: at(first), lastSeen: at(last), signal: signal)
    }

    @Test func windows_are_five_minutes_on_the_clock() {
        #expect(Proximity.windowStart(at: t0) == t0)
        #expect(Proximity.windowStart(at: at(4.99)) == t0)
        #expect(Proximity.windowStart(at: at(5)) == at(5))
        #expect(Proximity.windowStart(at: at(-0.01)) == at(-5))
        #expect(Proximity.windows(from: at(2), through: at(14)) == [at(0), at(5), at(10)])
        #expect(Proximity.windows(from: at(2), through: at(2)) == [at(0)])
        #expect(Proximity.windows(from: at(0), through: at(-1)).isEmpty)
        // A day holds 288 windows.
        #expect(Proximity.windows(from: t0, through: at(24 * 60 - 0.01)).count == 288)
    }

    @Test func a_pseudo_id_is_thirty_two_hexadecimal_digits() {
        #expect(Proximity.pseudoID(id) == id)
        #expect(Proximity.pseudoID(id.uppercased()) == id, "read in either case, kept lowercase")
        #expect(Proximity.pseudoID(String(id.dropLast())) == nil)
        #expect(Proximity.pseudoID(id + "0") == nil)
        #expect(Proximity.pseudoID(String(id.dropLast()) + "g") == nil)
        #expect(Proximity.pseudoID("") == nil)
        #expect(Proximity.pseudoID(String(repeating: "é", count: 16)) == nil)
    }

    @Test func a_sighting_fits_its_window_give_or_take_the_clocks() {
        #expect(Proximity.fits(windowStart: t0, firstSeen: at(0), lastSeen: at(5)))
        #expect(Proximity.fits(windowStart: t0, firstSeen: at(-5), lastSeen: at(10)), "five minutes of skew")
        #expect(!Proximity.fits(windowStart: t0, firstSeen: at(-5.1), lastSeen: at(1)))
        #expect(!Proximity.fits(windowStart: t0, firstSeen: at(1), lastSeen: at(10.1)))
        #expect(!Proximity.fits(windowStart: t0, firstSeen: at(60), lastSeen: at(61)), "an hour later")
    }

    @Test func an_upload_merges_repeated_pseudo_ids() throws {
        let other = String(repeating: "cd", count: 16)
        let checked = try Proximity.checkedUpload(
            [
                encounter(0, 1, signal: -80), encounter(2, 3, heard: other),
                encounter(3, 4, signal: -50, heard: id.uppercased()),
            ],
            now: at(10), retentionDays: 30)
        #expect(checked == [encounter(0, 4, signal: -50), encounter(2, 3, heard: other)])
        // The same upload twice is the same upload.
        #expect(try Proximity.checkedUpload(checked + checked, now: at(10), retentionDays: 30) == checked)
    }

    @Test func an_upload_out_of_bounds_is_refused_naming_the_encounter() {
        func refusal(_ encounters: [Proximity.Encounter]) -> String? {
            do {
                _ = try Proximity.checkedUpload(encounters, now: at(60), retentionDays: 30)
                return nil
            } catch {
                #expect(error.code == "invalid_encounters")
                return error.message.description
            }
        }
        #expect(refusal([])?.contains("at least one") == true)
        #expect(refusal([encounter(0, 1), encounter(0, 1, heard: "xyz")])?.hasPrefix("Encounter 2:") == true)
        #expect(refusal([encounter(3, 2)])?.contains("first heard after") == true)
        #expect(refusal([encounter(64, 66)])?.contains("future") == true)
        #expect(refusal([encounter(60, 65)]) == nil, "five minutes ahead is a phone's clock")
        #expect(refusal([encounter(-31 * 24 * 60, -31 * 24 * 60 + 1)])?.contains("30 days") == true)
        #expect(refusal([encounter(0, 16)])?.contains("one window") == true)
        #expect(refusal([encounter(0, 1, signal: -128)])?.contains("dBm") == true)
        #expect(refusal([encounter(0, 1, signal: 21)])?.contains("dBm") == true)
        let tooMany = Array(repeating: encounter(0, 1), count: Proximity.uploadLimit + 1)
        #expect(refusal(tooMany)?.contains("at most") == true)
    }

    @Test func minutes_count_overlaps_once_and_a_sighting_as_one_minute() {
        #expect(Proximity.minutes([]) == 0)
        #expect(Proximity.minutes([(at(0), at(0))]) == 1, "one sighting is one scan's minute")
        #expect(Proximity.minutes([(at(0), at(5))]) == 5)
        #expect(Proximity.minutes([(at(0), at(5)), (at(1), at(4))]) == 5, "both phones of a pair report it")
        #expect(Proximity.minutes([(at(0), at(5)), (at(5), at(10))]) == 10)
        #expect(Proximity.minutes([(at(0), at(5)), (at(20), at(20))]) == 6)
        #expect(Proximity.minutes([(at(20), at(22.5)), (at(0), at(2))]) == 4, "in any order, rounded down")
    }

    @Test func contacts_come_from_both_directions_and_leave_others_out() {
        let sightings = [
            Proximity.Sighting(listener: 1, speaker: 2, firstSeen: at(0), lastSeen: at(5)),
            Proximity.Sighting(listener: 2, speaker: 1, firstSeen: at(1), lastSeen: at(6)),
            Proximity.Sighting(listener: 3, speaker: 1, firstSeen: at(30), lastSeen: at(30)),
            Proximity.Sighting(listener: 2, speaker: 3, firstSeen: at(0), lastSeen: at(50)),
            Proximity.Sighting(listener: 1, speaker: 1, firstSeen: at(0), lastSeen: at(50)),
        ]
        #expect(
            Proximity.contacts(of: 1, in: sightings) == [
                Proximity.Contact(personID: 2, minutes: 6, firstSeen: at(0), lastSeen: at(6)),
                Proximity.Contact(personID: 3, minutes: 1, firstSeen: at(30), lastSeen: at(30)),
            ])
        #expect(Proximity.contacts(of: 4, in: sightings).isEmpty)
    }

    @Test func phone_contacts_join_the_ranking_with_their_evidence() {
        let encounters = [
            Exposure.Encounter(
                sessionID: 1,
                contacts: [
                    Exposure.Contact(personID: 2, name: "Bo", minutes: 50),
                    Exposure.Contact(personID: 3, name: "Cy", minutes: 10),
                ])
        ]
        let ranking = Exposure.ranking(
            encounters,
            proximity: [
                (Proximity.Contact(personID: 3, minutes: 40, firstSeen: at(0), lastSeen: at(40)), "Cy"),
                (Proximity.Contact(personID: 4, minutes: 20, firstSeen: at(0), lastSeen: at(20)), "Di"),
            ])
        #expect(ranking.map(\.personID) == [2, 3, 4], "by the larger of the two minutes")
        #expect(ranking.map(\.evidence) == [[.attendance], [.attendance, .proximity], [.proximity]])
        #expect(ranking[1].totalMinutes == 10 && ranking[1].proximityMinutes == 40 && ranking[1].sessions == 1)
        #expect(ranking[2].sessions == 0 && ranking[2].totalMinutes == 0)
        #expect(Exposure.ranking(encounters).map(\.proximityMinutes) == [0, 0], "attendance alone as before")
    }
}

/// Contacts with the same minutes are listed as the language sorts their names.
@Suite("Exposure ranking order", .timeLimit(.minutes(5)))
struct ExposureRankingOrderTests {
    @Test func ties_are_broken_by_collation_not_bytes() {
        let encounter = Exposure.Encounter(
            sessionID: 1,
            contacts: [
                Exposure.Contact(personID: 1, name: "Björn Schröder", minutes: 30),
                Exposure.Contact(personID: 2, name: "Björn Ångström", minutes: 30),
            ])
        #expect(Exposure.ranking([encounter]).map(\.name) == ["Björn Ångström", "Björn Schröder"])
        #expect(
            Exposure.encounters(
                of: 9,
                in: [
                    Exposure.Session(
                        id: 1, openedAt: Date(timeIntervalSince1970: 0), endedAt: Date(timeIntervalSince1970: 3600),
                        present: [
                            Exposure.Presence(personID: 9, name: "Pat", checkedInAt: nil),
                            Exposure.Presence(personID: 1, name: "Björn Schröder", checkedInAt: nil),
                            Exposure.Presence(personID: 2, name: "Björn Ångström", checkedInAt: nil),
                        ])
                ]
            ).first?.contacts.map(\.name) == ["Björn Ångström", "Björn Schröder"])
    }
}
