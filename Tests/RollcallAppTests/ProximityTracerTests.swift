import ClientTestSupport
import Foundation
import RollcallApp
import RollcallClient
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallHealth
@testable import RollcallServer

/// A clock the server under test reads, moved by the simulation.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var moment: Date

    init(_ start: Date) { moment = start }

    var now: Date {
        get { lock.withLock { moment } }
        set { lock.withLock { moment = newValue } }
    }
}

/// The app's proximity tracer over simulated radios and a simulated clock, against a real server on the same clock:
/// rotation, the listening cycle, refills, a phone switched off, storage, the 30 days, uploads with consent, and
/// 40 phones through a lecture and a week.
@Suite("Proximity tracer", .serialized, .timeLimit(.minutes(5)))
@MainActor
struct ProximityTracerTests {
    nonisolated static func server(
        at start: Date, _ body: @escaping @Sendable (API, TestClock) async throws -> Void
    ) async throws {
        let clock = TestClock(start)
        try await withServer(setup: .live, configure: { $0.clock = { clock.now } }) { api in
            try await body(api, clock)
        }
    }

    @Test func one_phone_rotates_listens_refills_and_forgets_after_thirty_days() async throws {
        // On a window's boundary, so that the steps below land where the test says.
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 300).rounded(.down) * 300)
        try await Self.server(at: start) { api, clock in
            try await Self.onePhone(api, clock, start: start)
        }
    }

    static func onePhone(_ api: API, _ clock: TestClock, start: Date) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tracer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = directory.appendingPathComponent("proximity.json")
        let ann = try await api.register("Ann Able")
        let bo = try await api.register("Bo Baker")
        let simulation = ProximitySimulation(start: start)
        simulation.clockMoved = { clock.now = $0 }
        let phone = simulation.addPhone(name: "Ann", rollcall: try api.rollcall(ann), storage: storage)
        simulation.addPhone(name: "Bo", rollcall: try api.rollcall(bo))
        #expect(!phone.tracer.isOn && phone.radio.advertised == nil)
        try await simulation.turnOn()
        #expect(phone.tracer.isOn)
        #expect(phone.tracer.idsUntil! >= start.addingTimeInterval(3 * 86_400), "three days of pseudo-IDs")

        // An hour in the library with Bo: one pseudo-ID a window, never one twice; listening a minute in two.
        var broadcast: [String] = []
        var listening = 0
        for _ in 0..<120 {
            await simulation.run(minutes: 0.5, step: 30) { _, _ in "library" }
            broadcast.append(phone.radio.advertised ?? "")
            if phone.radio.listening { listening += 1 }
        }
        #expect(Set(broadcast).count == 12, "an hour is twelve windows")
        #expect(broadcast.allSatisfy { $0.count == 32 })
        #expect(listening == 60, "half the time")
        #expect(phone.tracer.encounterCount == 12, "Bo's pseudo-IDs of twelve windows heard")
        #expect(simulation.contacts(of: 0) == [1])

        // A phone switched off for two days and a half: it comes back with no pseudo-ID lost and asks for more.
        let before = phone.tracer.idsUntil!
        simulation.skip(to: simulation.now.addingTimeInterval(2.5 * 86_400))
        await simulation.run(minutes: 1, step: 30) { _, _ in nil }
        #expect(phone.tracer.idsUntil! > before, "asked for more a day before they ran out")
        #expect(phone.radio.advertised != nil)

        // What the phone kept survives a restart.
        let restarted = ProximityTracer(
            rollcall: try api.rollcall(ann), radio: SimulatedAir().radio(), storage: storage)
        #expect(restarted.isOn && restarted.encounterCount == 12)
        #expect(restarted.heardRecently(at: simulation.now).isEmpty, "nothing heard in the last minutes")

        // Thirty days on, the phone forgets what it heard.
        simulation.skip(to: start.addingTimeInterval(31 * 86_400))
        await simulation.run(minutes: 1, step: 30) { _, _ in nil }
        #expect(phone.tracer.encounterCount == 0)

        // Off: the phone forgets, stops broadcasting, and the server refuses to issue until it is on again.
        try await phone.tracer.turnOff()
        #expect(!phone.tracer.isOn && phone.radio.advertised == nil && !phone.radio.listening)
        do {
            _ = try await api.rollcall(ann).proximityIDs()
            Issue.record("pseudo-IDs issued with proximity off")
        } catch let error as RollcallError {
            #expect(error.code == "proximity_off" && error.status == 409)
        }
        let reread = ProximityTracer(rollcall: try api.rollcall(ann), radio: SimulatedAir().radio(), storage: storage)
        #expect(!reread.isOn && reread.encounterCount == 0)
    }

    /// Forty people, each with a name the simulation can find again.
    static let names: [String] = {
        let first = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana"]
        let last = ["Ito", "Jones", "Khan", "Lopez", "Moreau"]
        return last.flatMap { family in first.map { "\($0) \(family)" } }
    }()

    @Test func forty_phones_through_a_lecture_and_a_week() async throws {
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 300).rounded(.down) * 300)
        try await Self.server(at: start) { api, clock in
            try await Self.fortyPhones(api, clock, start: start)
        }
    }

    static func fortyPhones(_ api: API, _ clock: TestClock, start: Date) async throws {
        let (teacher, courseID, code) = try await api.teacherWithCourse()
        var students: [Account] = []
        for name in names {
            let student = try await api.register(name)
            try await api.join(student, code: code)
            students.append(student)
        }
        let simulation = ProximitySimulation(start: start)
        simulation.clockMoved = { clock.now = $0 }
        for (index, student) in students.enumerated() {
            simulation.addPhone(name: names[index], rollcall: try api.rollcall(student))
        }
        try await simulation.turnOn()
        let session = try await api.call(
            .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["settings": ["askProximity": true]])
        let sessionID = try #require(session.int("session.id"))

        // The lecture: 36 in the hall, four at home (Hana Moreau, index 39, among them).
        let absent = 36..<40
        let hall = { (phone: Int, _: Date) -> String? in absent.contains(phone) ? "home \(phone)" : "hall" }
        await simulation.run(minutes: 4, place: hall)
        // The teacher's phone follows the room: the counts arrive with each check-in.
        let watching = RoomModel(rollcall: try api.rollcall(teacher), sessionID: sessionID)
        let following = Task { await watching.follow() }
        defer { following.cancel() }
        // The room's first picture before anyone checks in: the counts below come by live events.
        let shown = Date().addingTimeInterval(60)
        while watching.rows.count < 40, Date() < shown { try await Task.sleep(for: .milliseconds(50)) }
        #expect(watching.rows.count == 40 && watching.rows.allSatisfy { $0.heardBy == 0 })
        for index in 0..<36 {
            let link = try #require(
                try await api.call(.get, "/api/v1/sessions/\(sessionID)/projector", as: teacher).string("url"))
            let heard = simulation.phones[index].tracer.heardRecently(at: simulation.now)
            #expect(heard.count == 35, "every other phone in the hall")
            let result = try await simulation.phones[index].tracer.rollcall.checkIn(
                scannedLink: link, proof: CheckInProof(heard: { heard }))
            #expect(result.new)
        }
        let room = try await api.call(.get, "/sessions/\(sessionID)", as: teacher)
        #expect(room.text.components(separatedBy: "heard by 35 phones").count - 1 == 36)
        #expect(
            room.text.components(separatedBy: ">heard by 0 phones<").count - 1 == 4 + 1, "the absent, the blank row")
        let deadline = Date().addingTimeInterval(60)
        while watching.rows.filter({ $0.heardBy == 35 }).count < 36, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(watching.rows.filter { $0.heardBy == 35 }.count == 36, "the teacher's app counts 35 phones each")
        #expect(watching.rows.filter { $0.heardBy == 0 }.count == 4)
        await simulation.run(minutes: 60, place: hall)

        // The week: each morning an hour in study groups of four, shuffled daily; Gus Moreau's phone (38) is off
        // from Tuesday to Thursday; then twenty minutes in the cafeteria for every seventh person.
        for day in 1...6 {
            simulation.skip(to: start.addingTimeInterval(Double(day) * 86_400))
            let order = Array(0..<40).sorted { ($0 * 7 + day * 13) % 41 < ($1 * 7 + day * 13) % 41 }
            let group = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0 / 4) })
            await simulation.run(minutes: 60) { phone, _ in
                phone == 38 && (2...4).contains(day) ? nil : "day \(day) group \(group[phone]!)"
            }
            await simulation.run(minutes: 20) { phone, _ in phone % 7 == day % 7 ? "cafeteria" : "away \(phone)" }
        }

        // Seven people upload what their phones kept; each saw what the upload holds first.
        let uploaders = [0, 5, 10, 15, 20, 25, 30]
        let uploaded = try await simulation.upload(uploaders)
        #expect(uploaded.kept == uploaded.sent && uploaded.unknown == 0, "every pseudo-ID heard was Rollcall's")

        // A report about Hana: her contacts so far are those who uploaded and were near her.
        let admin = try await api.admin()
        let officer = try await api.register("Hal Health", role: "teacher")
        _ = try await api.call(.post, "/api/v1/admin/users/\(officer.id)/health-officer", as: admin)
        let hana = 39
        let run = try await api.call(
            .post, "/api/v1/exposure-reports", as: officer,
            json: ["personId": students[hana].id, "reason": "Positive test", "days": 8])
        #expect(run.status == .created, "\(run.text)")
        let expectedBefore = simulation.contacts(of: hana).intersection(uploaders).map { names[$0] }
        #expect(Set(run.list("report.phones").compactMap { $0["name"] as? String }) == Set(expectedBefore))
        #expect(!expectedBefore.isEmpty)
        #expect(run.list("report.sessions").isEmpty, "she was not at the lecture")

        // The officer asks her; her phone shows the request, and she uploads answering it.
        let reportID = try #require(run.int("report.id"))
        _ = try await api.call(.post, "/api/v1/exposure-reports/\(reportID)/proximity-request", as: officer)
        let phone = simulation.phones[hana].tracer
        try await phone.refresh()
        let request = try #require(phone.requests.first)
        let plan = phone.planUpload(answering: request.id)
        #expect(plan.count == phone.encounterCount && plan.count > 0)
        _ = try await phone.upload(plan)
        #expect(phone.requests.isEmpty)

        let report = try await api.call(.get, "/api/v1/exposure-reports/\(reportID)", as: officer)
        let expected = Set(simulation.contacts(of: hana).map { names[$0] })
        #expect(Set(report.list("report.phones").compactMap { $0["name"] as? String }) == expected)
        #expect(expected.count > 8, "a week of groups and lunches: \(expected.count)")
        #expect(report.list("report.contacts").allSatisfy { ($0["evidence"] as? [String]) == ["proximity"] })
        #expect(report.string("report.phoneRequest.answeredAt") != nil)
        for contact in report.list("report.phones") {
            let index = try #require(names.firstIndex(of: contact["name"] as? String ?? ""))
            let seconds = simulation.heard[.init(listener: hana, speaker: index), default: 0]
            #expect((contact["minutes"] as? Int ?? 0) >= Int(seconds / 60) / 2, "\(names[index])")
        }

        // Ada (0) was at the lecture and uploaded: her classmates rest on both kinds of evidence.
        let ada = try await api.call(
            .post, "/api/v1/exposure-reports", as: officer,
            json: ["personId": students[0].id, "reason": "Positive test", "days": 8])
        let both = ada.list("report.contacts").filter { ($0["evidence"] as? [String]) == ["attendance", "proximity"] }
        #expect(both.count == 35)
        #expect(
            Set(ada.list("report.phones").compactMap { $0["name"] as? String })
                == Set(simulation.contacts(of: 0).map { names[$0] }))

        // A month after the last pseudo-ID's window (they reach three days ahead), nothing of it is left: not on
        // the server, not on the phones.
        let later = simulation.now.addingTimeInterval(34 * 86_400)
        #expect(try await Self.purgedLeft(api, now: later) == 0)
        simulation.skip(to: later)
        await simulation.run(minutes: 0.5) { _, _ in nil }
        #expect(simulation.phones.allSatisfy { $0.tracer.encounterCount == 0 })
    }

    /// Purges what retention ages out at `now`, and counts the proximity rows left.
    nonisolated static func purgedLeft(_ api: API, now: Date) async throws -> Int {
        try await api.database().closing { database in
            try await EvidenceRetention.purge(database, days: 30, now: now)
            return try await database.read { sql in
                try await sql.raw(
                    """
                    SELECT (SELECT COUNT(*) FROM proximity_encounters) + (SELECT COUNT(*) FROM proximity_ids)
                      + (SELECT COUNT(*) FROM session_proximity) + (SELECT COUNT(*) FROM proximity_uploads) AS n
                    """
                ).first(decodingColumn: "n", as: Int.self) ?? -1
            }
        }
    }
}
