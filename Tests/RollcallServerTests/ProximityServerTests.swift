import Foundation
import HTTPTypes
import RollcallCore
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallHealth
@testable import RollcallServer

/// The phones' own evidence through the API: pseudo-IDs, uploads, the report's phone contacts, the room's counts,
/// retention and erasure, and every refusal leaving nothing.
@Suite("Proximity through the API", .timeLimit(.minutes(5)))
struct ProximityServerTests {
    /// Turns proximity on for `account` and fetches a day of pseudo-IDs: `[windowStart: id]`.
    static func phone(_ api: API, _ account: Account, days: Int = 1) async throws -> [Date: String] {
        let on = try await api.call(.put, "/api/v1/me/proximity", as: account, json: ["on": true])
        #expect(on.status == .ok, "\(on.text)")
        let issued = try await api.call(.post, "/api/v1/me/proximity-ids", as: account, json: ["days": days])
        #expect(issued.status == .created, "\(issued.text)")
        var ids: [Date: String] = [:]
        for entry in issued.list("ids") {
            let start = try #require(RFC3339.moment(entry["windowStart"] as? String ?? ""))
            ids[start] = entry["id"] as? String
        }
        return ids
    }

    static func encounter(_ id: String, from: Date, minutes: Double = 4, signal: Int = -60) -> [String: Any] {
        [
            "heard": id, "firstSeen": from.formatted(.iso8601),
            "lastSeen": from.addingTimeInterval(minutes * 60).formatted(.iso8601), "signal": signal,
        ]
    }

    static func rows(_ api: API, _ table: String) async throws -> Int {
        try await api.database().closing { database in
            try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first(
                    decodingColumn: "n", as: Int.self)
                    ?? 0
            }
        }
    }

    @Test func pseudo_ids_come_for_each_window_only_while_proximity_is_on() async throws {
        try await withServer { api in
            let pat = try await api.register("Pat Phone")
            let off = try await api.call(.get, "/api/v1/me/proximity", as: pat)
            #expect(off.value("proximity.on") as? Bool == false)
            try await api.expectRefused(
                .post, "/api/v1/me/proximity-ids", as: pat, json: [:], status: .conflict, code: "proximity_off")
            #expect(
                try await Self.rows(api, "attempt_counters WHERE scope = 'proximity_ids'") == 0,
                "a refusal moves no day's count")

            let ids = try await Self.phone(api, pat, days: 2)
            #expect(ids.count == 2 * 288 + 1, "every window from the current one for two days")
            #expect(Set(ids.values).count == ids.count, "no two alike")
            #expect(ids.values.allSatisfy { Proximity.pseudoID($0) == $0 })
            let now = Date()
            #expect(ids.keys.min() == Proximity.windowStart(at: now) || ids.keys.min()! < now)
            let standing = try await api.call(.get, "/api/v1/me/proximity", as: pat)
            #expect(standing.value("proximity.on") as? Bool == true)
            #expect(standing.int("proximity.windowSeconds") == 300)
            // Rollcall keeps a keyed hash, never the value.
            let kept = try await api.database().closing { database in
                try await database.read { sql in
                    try await sql.raw("SELECT id_hash FROM proximity_ids").all().map {
                        try $0.decode(column: "id_hash", as: String.self)
                    }
                }
            }
            #expect(kept.count == ids.count)
            #expect(Set(kept).isDisjoint(with: ids.values))

            // Asking again replaces the windows still to come, not the one being broadcast.
            let again = try await Self.phone(api, pat, days: 1)
            #expect(try await Self.rows(api, "proximity_ids") == 2 + 288, "two for now, a fresh day after it")
            #expect(Set(again.values).isDisjoint(with: ids.values))
        }
    }

    @Test func bad_requests_for_pseudo_ids_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let pat = try await api.register("Pat Phone")
            _ = try await Self.phone(api, pat)
            for days in [0, 8, -1] {
                try await api.expectRefused(
                    .post, "/api/v1/me/proximity-ids", as: pat, json: ["days": days], status: .badRequest,
                    code: "invalid_days")
            }
            try await api.expectRefused(
                .post, "/api/v1/me/proximity-ids", as: pat, json: ["days": 2.5], status: .badRequest,
                code: "invalid_days")
            try await api.expectRefused(
                .put, "/api/v1/me/proximity", as: pat, json: [:], status: .badRequest, code: "missing_field")
            try await api.expectRefused(
                .post, "/api/v1/me/proximity-ids", json: [:], status: .unauthorized, code: "not_signed_in")
            // A day's allowance, counted; the request past it is refused without issuing anything.
            for _ in 0..<(ProximityController.requestsPerDay - 1) {
                let reply = try await api.call(.post, "/api/v1/me/proximity-ids", as: pat, json: ["days": 1])
                #expect(reply.status == .created)
            }
            let before = try await Self.rows(api, "proximity_ids")
            let refused = try await api.call(.post, "/api/v1/me/proximity-ids", as: pat, json: ["days": 1])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "too_many_proximity_requests")
            #expect(try await Self.rows(api, "proximity_ids") == before)
        }
    }

    @Test func an_upload_keeps_what_rollcall_issued_and_counts_the_rest() async throws {
        try await withServer { api in
            let (ann, bo, cy) = (
                try await api.register("Ann Able"), try await api.register("Bo Baker"),
                try await api.register("Cy Cole")
            )
            let annIDs = try await Self.phone(api, ann)
            let boIDs = try await Self.phone(api, bo)
            let cyIDs = try await Self.phone(api, cy)
            let window = Proximity.windowStart(at: Date())
            let stranger = String(repeating: "0f", count: 16)
            let upload: [[String: Any]] = [
                Self.encounter(boIDs[window]!, from: window),
                Self.encounter(cyIDs[window]!.uppercased(), from: window, minutes: 1, signal: -80),
                Self.encounter(stranger, from: window),
                Self.encounter(annIDs[window]!, from: window),
                // Bo's next window's pseudo-ID, heard an hour before it: not a real sighting.
                Self.encounter(boIDs[window.addingTimeInterval(3600)]!, from: window),
            ]
            let reply = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: ann, json: ["encounters": upload])
            #expect(reply.status == .created, "\(reply.text)")
            #expect(reply.int("upload.received") == 5)
            #expect(reply.int("upload.kept") == 2)
            #expect(reply.int("upload.unknown") == 3)
            #expect(try await Self.rows(api, "proximity_encounters") == 2)

            // The same upload again changes nothing; a longer sighting widens the one kept.
            let before = try await api.snapshot()["proximity_encounters"]
            _ = try await api.call(.post, "/api/v1/me/proximity-encounters", as: ann, json: ["encounters": upload])
            #expect(try await api.snapshot()["proximity_encounters"] == before)
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: ann,
                json: ["encounters": [Self.encounter(cyIDs[window]!, from: window, minutes: 5, signal: -50)]])
            let widened = try await api.snapshot()["proximity_encounters"] ?? []
            #expect(widened.count == 2)
            #expect(widened.contains { $0.contains("signal=-50") })

            let standing = try await api.call(.get, "/api/v1/me/proximity", as: ann)
            #expect(standing.int("proximity.encountersUploaded") == 2)
            #expect(standing.list("proximity.uploads").count == 3)
        }
    }

    @Test func bad_uploads_are_refused_without_a_trace() async throws {
        try await withServer { api in
            let ann = try await api.register("Ann Able")
            let bo = try await api.register("Bo Baker")
            let boIDs = try await Self.phone(api, bo)
            let window = Proximity.windowStart(at: Date())
            let good = Self.encounter(boIDs[window]!, from: window)
            let path = "/api/v1/me/proximity-encounters"
            // Off: nothing is taken.
            try await api.expectRefused(
                .post, path, as: ann, json: ["encounters": [good]], status: .conflict, code: "proximity_off")
            _ = try await Self.phone(api, ann)
            var future = good
            future["lastSeen"] = Date().addingTimeInterval(3600).formatted(.iso8601)
            var backwards = good
            backwards["firstSeen"] = window.addingTimeInterval(600).formatted(.iso8601)
            var old = good
            old["firstSeen"] = Date().addingTimeInterval(-40 * 86_400).formatted(.iso8601)
            old["lastSeen"] = Date().addingTimeInterval(-40 * 86_400 + 60).formatted(.iso8601)
            var loud = good
            loud["signal"] = 40
            var notHex = good
            notHex["heard"] = "zz"
            for bad in [future, backwards, old, loud, notHex] {
                try await api.expectRefused(
                    .post, path, as: ann, json: ["encounters": [good, bad]], status: .badRequest,
                    code: "invalid_encounters")
            }
            try await api.expectRefused(
                .post, path, as: ann, json: ["encounters": []], status: .badRequest, code: "invalid_encounters")
            try await api.expectRefused(
                .post, path, as: ann, json: ["encounters": [["heard": boIDs[window]!]]], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .post, path, as: ann, json: ["encounters": [good], "requestId": 999], status: .notFound,
                code: "proximity_request_not_found")
        }
    }

    @Test func a_report_names_phone_contacts_with_their_evidence_and_the_officer_can_ask() async throws {
        try await withServer { api in
            try await Self.a_report_names_phone_contacts_with_their_evidence_and_the_officer_can_ask(api)
        }
    }

    static func a_report_names_phone_contacts_with_their_evidence_and_the_officer_can_ask(_ api: API) async throws {
        do {
            let admin = try await api.admin()
            let officer = try await api.healthOfficer(admin: admin)
            let ann = try await api.register("Ann Able")
            let bo = try await api.register("Bo Baker")
            let cy = try await api.register("Cy Cole")
            let di = try await api.register("Di Dove")
            let annIDs = try await Self.phone(api, ann)
            let boIDs = try await Self.phone(api, bo)
            _ = try await Self.phone(api, cy)
            let diIDs = try await Self.phone(api, di)
            let window = Proximity.windowStart(at: Date())
            // Bo's phone heard Ann's; Bo and Di heard each other, which is not about Ann.
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: bo,
                json: [
                    "encounters": [
                        Self.encounter(annIDs[window]!, from: window), Self.encounter(diIDs[window]!, from: window),
                    ]
                ])
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: di,
                json: ["encounters": [Self.encounter(boIDs[window]!, from: window)]])

            let run = try await api.call(
                .post, "/api/v1/exposure-reports", as: officer,
                json: ["personId": ann.id, "reason": "Positive test reported", "days": 7])
            #expect(run.status == .created, "\(run.text)")
            #expect(run.list("report.phones").map { $0["name"] as? String } == ["Bo Baker"])
            #expect(run.list("report.phones").first?["minutes"] as? Int == 4)
            let contact = try #require(run.list("report.contacts").first)
            #expect(contact["name"] as? String == "Bo Baker")
            #expect(contact["evidence"] as? [String] == ["proximity"])
            #expect(contact["proximityMinutes"] as? Int == 4 && contact["sessions"] as? Int == 0)
            #expect(run.value("report.phoneRequest") == nil)

            // The officer asks Ann for her phone's side; she sees it, and answers with her upload.
            let reportID = try #require(run.int("report.id"))
            let asked = try await api.call(
                .post, "/api/v1/exposure-reports/\(reportID)/proximity-request", as: officer)
            #expect(asked.status == .created, "\(asked.text)")
            let requestID = try #require(asked.int("request.id"))
            let again = try await api.call(
                .post, "/api/v1/exposure-reports/\(reportID)/proximity-request", as: officer)
            #expect(again.int("request.id") == requestID, "asking again is the same request")
            let mine = try await api.call(.get, "/api/v1/me/proximity", as: ann)
            #expect(mine.list("proximity.requests").first?["id"] as? Int == Int(requestID))
            #expect(mine.list("proximity.requests").first?["answeredAt"] == nil)
            try await api.expectRefused(
                .post, "/api/v1/me/proximity-encounters", as: cy,
                json: ["encounters": [Self.encounter(annIDs[window]!, from: window)], "requestId": requestID],
                status: .notFound, code: "proximity_request_not_found")
            let answered = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: ann,
                json: [
                    "encounters": [Self.encounter(diIDs[window]!, from: window, minutes: 2)], "requestId": requestID,
                ])
            #expect(answered.status == .created, "\(answered.text)")
            #expect(answered.int("upload.requestId") == requestID)

            let report = try await api.call(.get, "/api/v1/exposure-reports/\(reportID)", as: officer)
            #expect(report.list("report.phones").compactMap { $0["name"] as? String } == ["Bo Baker", "Di Dove"])
            #expect(report.string("report.phoneRequest.answeredAt") != nil)
            let page = try await api.call(.get, "/exposure/reports/\(reportID)", as: officer)
            #expect(page.text.contains("id=\"phone-contacts\""))
            #expect(page.text.contains("uploaded"))
            let csv = try await api.csv("/api/v1/exposure-reports/\(reportID)/report.csv", as: officer)
            #expect(csv.contains { $0.first == "Di Dove" && $0[4] == "proximity" })

            // Another officer's report is not this one's to ask about; a student cannot ask at all.
            let other = try await api.healthOfficer("Olga Other", admin: admin)
            try await api.expectRefused(
                .post, "/api/v1/exposure-reports/\(reportID)/proximity-request", as: other, status: .notFound,
                code: "exposure_report_not_found")
            try await api.expectRefused(
                .post, "/api/v1/exposure-reports/\(reportID)/proximity-request", as: ann, status: .forbidden,
                code: "forbidden")
        }
    }

    @Test func turning_proximity_off_forgets_what_anyone_heard() async throws {
        try await withServer { api in try await Self.turning_proximity_off_forgets_what_anyone_heard(api) }
    }

    static func turning_proximity_off_forgets_what_anyone_heard(_ api: API) async throws {
        do {
            let ann = try await api.register("Ann Able")
            let bo = try await api.register("Bo Baker")
            let annIDs = try await Self.phone(api, ann)
            let boIDs = try await Self.phone(api, bo)
            let window = Proximity.windowStart(at: Date())
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: ann,
                json: ["encounters": [Self.encounter(boIDs[window]!, from: window)]])
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: bo,
                json: ["encounters": [Self.encounter(annIDs[window]!, from: window)]])
            #expect(try await Self.rows(api, "proximity_encounters") == 2)
            let off = try await api.call(.put, "/api/v1/me/proximity", as: bo, json: ["on": false])
            #expect(off.value("proximity.on") as? Bool == false)
            #expect(try await Self.rows(api, "proximity_encounters") == 0, "Bo's uploads, and Ann's of Bo")
            #expect(try await Self.rows(api, "proximity_ids") == 289, "Ann's stay")
            #expect(try await Self.rows(api, "proximity_uploads") == 1, "Ann's upload's counts stay")
        }
    }

    @Test func a_session_that_asks_counts_the_classmates_phones_that_heard_each_student() async throws {
        try await withServer { api in
            try await Self.a_session_that_asks_counts_the_classmates_phones_that_heard_each_student(api)
        }
    }

    static func a_session_that_asks_counts_the_classmates_phones_that_heard_each_student(_ api: API) async throws {
        do {
            let room = try await Classroom.open(api, settings: ["askProximity": true])
            let bo = try await room.enrol(api, "Bo Baker")
            let cy = try await room.enrol(api, "Cy Cole")
            let cassIDs = try await Self.phone(api, room.student)
            let boIDs = try await Self.phone(api, bo)
            let window = Proximity.windowStart(at: Date())
            let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: bo)
            #expect(session.value("session.checkIn.askProximity") as? Bool == true)

            // Bad heard lists are refused before anything is recorded.
            let ticket = try await room.scan(api, as: cy)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: cy, json: ["ticket": ticket, "heard": ["nope"]], status: .badRequest,
                code: "invalid_heard")
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: cy,
                json: ["ticket": ticket, "heard": Array(repeating: cassIDs[window]!, count: 501)],
                status: .badRequest, code: "invalid_heard")

            // Cass checks in without the app; Bo heard Cass; Cy heard Cass and Bo, each checked in before him; a
            // stranger's and Cy's own values count for nobody.
            #expect(try await room.checkIn(api, room.student).status == .created)
            let boIn = try await api.call(
                .post, "/api/v1/check-ins", as: bo,
                json: ["ticket": try await room.scan(api, as: bo), "heard": [cassIDs[window]!, cassIDs[window]!]])
            #expect(boIn.status == .created, "\(boIn.text)")
            // A repeated check-in brings nothing new.
            _ = try await api.call(
                .post, "/api/v1/check-ins", as: bo,
                json: ["ticket": try await room.scan(api, as: bo), "heard": [cassIDs[window]!]])
            let cyIn = try await api.call(
                .post, "/api/v1/check-ins", as: cy,
                json: [
                    "ticket": ticket, "heard": [cassIDs[window]!, boIDs[window]!, String(repeating: "1", count: 32)],
                ])
            #expect(cyIn.status == .created, "\(cyIn.text)")

            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.contains("heard by 2 phones"), "Cass, by Bo and Cy")
            #expect(page.text.contains("heard by 1 phone"), "Bo, by Cy")
            #expect(page.text.contains("heard by 0 phones"), "Cy, by nobody")
            #expect(try await Self.rows(api, "session_proximity") == 3)
            let events = try await api.database().closing { database in
                try await database.read { sql in
                    try await sql.raw("SELECT payload FROM session_events WHERE kind = 'heard' ORDER BY id").all().map {
                        try $0.decode(column: "payload", as: String.self)
                    }
                }
            }
            #expect(events.count == 2)
            #expect(events.first?.contains("\"heardBy\":\(bo.id)") == true)
            #expect(events.last?.contains("\"heardBy\":\(cy.id)") == true)
        }
    }

    @Test func a_session_that_does_not_ask_keeps_nothing_heard() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let bo = try await room.enrol(api, "Bo Baker")
            let cassIDs = try await Self.phone(api, room.student)
            let window = Proximity.windowStart(at: Date())
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: bo,
                json: ["ticket": try await room.scan(api, as: bo), "heard": [cassIDs[window]!]])
            #expect(reply.status == .created)
            #expect(try await Self.rows(api, "session_proximity") == 0)
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(!page.text.contains("heard by"))
        }
    }

    @Test func retention_and_erasure_leave_nothing_of_the_phones() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["askProximity": true])
            let bo = try await room.enrol(api, "Bo Baker")
            let cassIDs = try await Self.phone(api, room.student)
            let boIDs = try await Self.phone(api, bo)
            let window = Proximity.windowStart(at: Date())
            #expect(try await room.checkIn(api, room.student).status == .created)
            _ = try await api.call(
                .post, "/api/v1/check-ins", as: bo,
                json: ["ticket": try await room.scan(api, as: bo), "heard": [cassIDs[window]!]])
            _ = try await api.call(
                .post, "/api/v1/me/proximity-encounters", as: room.student,
                json: ["encounters": [Self.encounter(boIDs[window]!, from: window)]])
            let tables = ["proximity_ids", "proximity_encounters", "session_proximity", "proximity_uploads"]
            for table in tables { #expect(try await Self.rows(api, table) > 0, "\(table)") }

            // Bo's data download says what is kept of his phone, not whom it heard.
            let data = try await api.call(.get, "/api/v1/me/data", as: bo)
            #expect(data.int("data.proximity.pseudoIDsKept") == 289)

            // Erasing Cass forgets her pseudo-IDs, her uploads and her counts.
            let admin = try await api.admin()
            let erased = try await api.call(.delete, "/api/v1/admin/users/\(room.student.id)", as: admin)
            #expect(erased.status == .noContent, "\(erased.text)")
            #expect(try await Self.rows(api, "proximity_encounters") == 0)
            #expect(try await Self.rows(api, "session_proximity") == 0)
            #expect(try await Self.rows(api, "proximity_ids") == 289, "Bo's")

            // Past retention (pseudo-IDs reach three days ahead, so a purge well after), nothing is left.
            try await api.database().closing { database in
                try await EvidenceRetention.purge(
                    database, days: Retention.defaultDays, now: Date().addingTimeInterval(40 * 86_400))
            }
            for table in tables { #expect(try await Self.rows(api, table) == 0, "\(table)") }
        }
    }

    /// The report, the room's counts and forgetting, each on a PostgreSQL of its own.
    @Test func the_phones_evidence_on_postgresql() async throws {
        let scenarios: [@Sendable (API) async throws -> Void] = [
            Self.a_report_names_phone_contacts_with_their_evidence_and_the_officer_can_ask,
            Self.a_session_that_asks_counts_the_classmates_phones_that_heard_each_student,
            Self.turning_proximity_off_forgets_what_anyone_heard,
        ]
        for scenario in scenarios {
            let postgres = try PostgresServer.start()
            defer { postgres.stop() }
            try await withServer(databaseURL: postgres.url) { api in try await scenario(api) }
        }
    }

    /// The same heard pseudo-ID, by two check-ins of one student at once on two processes, and the same upload
    /// twice at once: one count, one live event, one encounter.
    static func racing(_ first: API, _ second: API) async throws {
        let room = try await Classroom.open(first, settings: ["askProximity": true])
        let bo = try await room.enrol(first, "Bo Baker")
        let cassIDs = try await Self.phone(first, room.student)
        let boIDs = try await Self.phone(first, bo)
        let window = Proximity.windowStart(at: Date())
        #expect(try await room.checkIn(first, room.student).status == .created)
        let tickets = [try await room.scan(first, as: bo), try await room.scan(second, as: bo)]
        let boNow = boIDs[window]!
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (api, ticket) in zip([first, second], tickets) {
                group.addTask {
                    try await api.call(
                        .post, "/api/v1/check-ins", as: bo, json: ["ticket": ticket, "heard": [cassIDs[window]!]]
                    ).status.code
                }
                group.addTask {
                    try await api.call(
                        .post, "/api/v1/me/proximity-encounters", as: room.student,
                        json: ["encounters": [Self.encounter(boNow, from: window)]]
                    ).status.code
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 201, 201, 201], "\(statuses)")
        #expect(try await Self.rows(first, "session_proximity") == 1)
        #expect(try await Self.rows(first, "proximity_encounters") == 1)
        #expect(try await Self.rows(first, "proximity_uploads") == 2)
        let events = try await first.database().closing { database in
            try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM session_events WHERE kind = 'heard'").first(
                    decodingColumn: "n", as: Int.self)
            }
        }
        #expect(events == 1)
    }

    @Test func at_once_on_sqlite_one_count_one_event_one_encounter() async throws {
        try await withServer { api in try await Self.racing(api, api) }
    }

    @Test func at_once_on_two_processes_one_count_one_event_one_encounter() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { first in
            try await withServer(databaseURL: postgres.url) { second in try await Self.racing(first, second) }
        }
    }
}
