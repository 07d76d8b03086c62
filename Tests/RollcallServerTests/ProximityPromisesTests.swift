import Foundation
import HTTPTypes
import RollcallCore
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallHealth
@testable import RollcallServer

/// What `docs/privacy.md` promises of the phones' evidence, held against an uploader or a check-in that tries to
/// learn more than it should, or to cost everyone their check-in.
@Suite("Proximity keeps its promises", .timeLimit(.minutes(5)))
struct ProximityPromisesTests {
    typealias Phones = ProximityServerTests

    /// The room's `heard` events as stored: who heard, and whom.
    static func heardEvents(_ api: API) async throws -> [SessionChange.Heard] {
        let payloads = try await api.database().closing { database in
            try await database.read { sql in
                try await sql.raw("SELECT payload FROM session_events WHERE kind = 'heard' ORDER BY id").all().map {
                    try $0.decode(column: "payload", as: String.self)
                }
            }
        }
        return try payloads.map { try JSONDecoder().decode(SessionChange.Heard.self, from: Data($0.utf8)) }
    }

    @Test func heard_pseudo_ids_name_only_classmates_who_checked_in_themselves() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["askProximity": true])
            let bo = try await room.enrol(api, "Bo Baker")
            let absent = try await room.enrol(api, "Al Absent")
            let marked = try await room.enrol(api, "Di Marked")
            let stranger = try await api.register("Stan Stranger")
            let cass = try await Phones.phone(api, room.student)
            let relayed = try await Phones.phone(api, absent)
            let byHand = try await Phones.phone(api, marked)
            let sniffed = try await Phones.phone(api, stranger)
            _ = try await Phones.phone(api, bo)
            let window = Proximity.windowStart(at: Date())
            #expect(try await room.checkIn(api, room.student).status == .created)
            let mark = try await api.mark(room, session: room.sessionID, student: marked.id, "present")
            #expect(mark.status == .ok, "\(mark.text)")

            let heard = [cass, relayed, byHand, sniffed].map { $0[window]! }
            let boIn = try await api.call(
                .post, "/api/v1/check-ins", as: bo, json: ["ticket": try await room.scan(api, as: bo), "heard": heard])
            #expect(boIn.status == .created, "\(boIn.text)")

            // Only Cass is in the room by her own check-in: the stranger is not named to the teacher, and neither
            // the absent classmate nor the one marked by hand is vouched for.
            let cassHeard = SessionChange.Heard(studentIds: [room.student.id], heardBy: bo.id)
            #expect(try await Self.heardEvents(api) == [cassHeard])
            #expect(try await Phones.rows(api, "session_proximity WHERE student_id = \(stranger.id)") == 0)
            var page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.components(separatedBy: ">heard by 1 phone<").count - 1 == 1, "Cass alone")
            #expect(page.text.contains("id=\"heard-meaning\""), "the room says what the count means")

            // Once the absent classmate checks in himself, Bo's phone counts for him too, in the room and its events.
            #expect(try await room.checkIn(api, absent).status == .created)
            #expect(
                try await Self.heardEvents(api) == [
                    cassHeard, SessionChange.Heard(studentIds: [absent.id], heardBy: bo.id),
                ])
            page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.components(separatedBy: ">heard by 1 phone<").count - 1 == 2, "Cass and Al, not Di")
        }
    }

    @Test func heard_events_go_with_proximity_off_an_erased_account_and_retention() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["askProximity": true])
            let (bo, cy, di) = (
                try await room.enrol(api, "Bo Baker"), try await room.enrol(api, "Cy Cole"),
                try await room.enrol(api, "Di Dove")
            )
            let cass = try await Phones.phone(api, room.student)
            let boIDs = try await Phones.phone(api, bo)
            _ = try await Phones.phone(api, cy)
            _ = try await Phones.phone(api, di)
            let window = Proximity.windowStart(at: Date())
            #expect(try await room.checkIn(api, room.student).status == .created)
            for (student, heard) in [
                (bo, [cass[window]!]), (cy, [cass[window]!, boIDs[window]!]), (di, [cass[window]!]),
            ] {
                let reply = try await api.call(
                    .post, "/api/v1/check-ins", as: student,
                    json: ["ticket": try await room.scan(api, as: student), "heard": heard])
                #expect(reply.status == .created, "\(reply.text)")
            }
            let cassID = room.student.id
            #expect(
                try await Self.heardEvents(api) == [
                    .init(studentIds: [cassID], heardBy: bo.id), .init(studentIds: [cassID, bo.id], heardBy: cy.id),
                    .init(studentIds: [cassID], heardBy: di.id),
                ])

            // Bo turns proximity off: his own event goes, and he leaves Cy's.
            _ = try await api.call(.put, "/api/v1/me/proximity", as: bo, json: ["on": false])
            #expect(
                try await Self.heardEvents(api) == [
                    .init(studentIds: [cassID], heardBy: cy.id), .init(studentIds: [cassID], heardBy: di.id),
                ])

            // Di's account is deleted: her event goes.
            let gone = try await api.call(.delete, "/api/v1/me", as: di)
            #expect(gone.status == .noContent, "\(gone.text)")
            #expect(try await Self.heardEvents(api) == [.init(studentIds: [cassID], heardBy: cy.id)])

            // Past retention the last one goes too; the check-ins' own events stay with the attendance.
            try await api.database().closing { database in
                try await EvidenceRetention.purge(
                    database, days: Retention.defaultDays, now: Date().addingTimeInterval(40 * 86_400))
            }
            #expect(try await Self.heardEvents(api).isEmpty)
            #expect(try await Phones.rows(api, "session_events WHERE kind = 'checked_in'") == 4)
        }
    }

    @Test func an_encounter_longer_than_one_window_refuses_the_upload() async throws {
        try await withServer { api in
            let ann = try await api.register("Ann Able")
            let bo = try await api.register("Bo Baker")
            let boIDs = try await Phones.phone(api, bo)
            _ = try await Phones.phone(api, ann)
            let window = Proximity.windowStart(at: Date()).addingTimeInterval(-600)
            let good = Phones.encounter(boIDs[Proximity.windowStart(at: Date())]!, from: window, minutes: 1)
            for seconds in [301.0, 900] {
                let long = Phones.encounter(String(repeating: "ab", count: 16), from: window, minutes: seconds / 60)
                let before = try await api.snapshot()
                let reply = try await api.call(
                    .post, "/api/v1/me/proximity-encounters", as: ann, json: ["encounters": [good, long]])
                #expect(reply.status == .badRequest, "\(seconds) s: \(reply.text)")
                #expect(reply.errorCode == "invalid_encounters")
                #expect(reply.string("error.message")?.hasPrefix("Encounter 2:") == true, "\(reply.text)")
                #expect(try await api.snapshot() == before, "nothing kept, nothing counted")
            }
            let window300 = Phones.encounter(String(repeating: "ab", count: 16), from: window, minutes: 5)
            let whole = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: ann, json: ["encounters": [window300]])
            #expect(whole.status == .created, "one window exactly is one window: \(whole.text)")
        }
    }

    /// A 429 that says when to come back, in the header and in the details, and changes nothing.
    static func expectRetryLater(
        _ api: API, _ path: String, as account: Account, json: Any, code: String, within window: Int
    ) async throws {
        let before = try await api.snapshot()
        let refused = try await api.call(.post, path, as: account, json: json)
        #expect(refused.status == .tooManyRequests, "\(refused.text)")
        #expect(refused.errorCode == code)
        let header = try #require(refused.headers[.retryAfter].flatMap(Int.init), "Retry-After")
        #expect((1...window).contains(header))
        #expect(refused.int("error.details.retryAfterSeconds") == Int64(header))
        #expect(try await api.snapshot() == before, "a refusal moves no count and keeps nothing")
    }

    @Test func uploads_are_limited_per_person_and_say_when_to_come_back() async throws {
        try await withServer { api in
            let ann = try await api.register("Ann Able")
            let bo = try await api.register("Bo Baker")
            let boIDs = try await Phones.phone(api, bo)
            _ = try await Phones.phone(api, ann)
            let window = Proximity.windowStart(at: Date())
            let path = "/api/v1/me/proximity-encounters"
            let upload = ["encounters": [Phones.encounter(boIDs[window]!, from: window)]]
            // A refused upload is not one of the hour's.
            try await api.expectRefused(
                .post, path, as: ann, json: ["encounters": []], status: .badRequest, code: "invalid_encounters")
            // Ten an hour, as docs/privacy.md and openapi.yaml say.
            for number in 1...10 {
                let reply = try await api.call(.post, path, as: ann, json: upload)
                #expect(reply.status == .created, "upload \(number): \(reply.text)")
            }
            try await Self.expectRetryLater(
                api, path, as: ann, json: upload, code: "too_many_proximity_uploads", within: 3_600)
            // Bo's hour is his own.
            let his = try await api.call(
                .post, path, as: bo,
                json: ["encounters": [Phones.encounter(String(repeating: "cd", count: 16), from: window)]])
            #expect(his.status == .created, "\(his.text)")
        }
    }

    @Test func the_25th_request_for_pseudo_ids_says_when_to_come_back() async throws {
        try await withServer { api in
            let pat = try await api.register("Pat Phone")
            _ = try await Phones.phone(api, pat)
            for _ in 1..<ProximityController.requestsPerDay {
                let reply = try await api.call(.post, "/api/v1/me/proximity-ids", as: pat, json: ["days": 1])
                #expect(reply.status == .created)
            }
            try await Self.expectRetryLater(
                api, "/api/v1/me/proximity-ids", as: pat, json: ["days": 1], code: "too_many_proximity_requests",
                within: 86_400)
        }
    }
}
