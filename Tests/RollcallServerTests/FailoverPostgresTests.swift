import Foundation
import HTTPTypes
import HummingbirdWSClient
import HummingbirdWSTesting
import NIOConcurrencyHelpers
import RollcallCore
import RollcallParts
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The primary PostgreSQL server crashes under two Rollcall servers in the middle of a lecture's check-ins, and the
/// operator promotes its synchronous standby: no acknowledged check-in is lost, every answer meanwhile is a 503 that
/// says to try again, both servers take check-ins again soon after the promotion, and the teacher's room sees every
/// check-in. The two "processes" are two applications in this test process, each with its own pool and listener, as
/// in the other tests of several processes.
@Suite("Failover of PostgreSQL", .serialized, .timeLimit(.minutes(5)))
struct FailoverPostgresTests {
    @Test func no_acknowledged_check_in_is_lost_when_the_primary_crashes_and_servers_listing_both_hosts_move_on()
        async throws
    {
        let primary = try PostgresServer.start(synchronousStandby: true)
        defer { primary.stop() }
        let standby = try primary.startStandby()
        defer { standby.stop() }
        try await primary.waitForSynchronousStandby()
        let figures = try await Failover(primary: primary, standby: standby, form: "host list")
            .run(databaseURL: PostgresServer.url(listing: [primary, standby]))
        figures.check()
    }

    @Test func no_acknowledged_check_in_is_lost_when_the_primary_crashes_and_the_proxy_moves_to_the_standby()
        async throws
    {
        try await Self.failOverBehindProxy(form: "proxy")
    }

    /// A machine that is lost sends no reset: the connections to it fall silent, and only a deadline tells.
    @Test func no_acknowledged_check_in_is_lost_when_the_primary_machine_falls_silent_and_the_proxy_moves()
        async throws
    {
        try await Self.failOverBehindProxy(form: "proxy, machine silent", silent: true)
    }

    /// One address through a proxy whose target moves to the standby once it is promoted; `silent`, the primary's
    /// connections fall silent at the crash instead of being reset.
    static func failOverBehindProxy(form: String, silent: Bool = false) async throws {
        let primary = try PostgresServer.start(synchronousStandby: true)
        defer { primary.stop() }
        let standby = try primary.startStandby()
        defer { standby.stop() }
        try await primary.waitForSynchronousStandby()
        let proxy = try await TCPProxy.start(to: primary.port)
        let figures: Failover.Figures
        do {
            figures = try await Failover(primary: primary, standby: standby, form: form)
                .run(
                    databaseURL: "postgres://rollcall@127.0.0.1:\(proxy.port)/postgres?sslmode=disable",
                    atCrash: { if silent { proxy.cut() } }, afterPromotion: { proxy.move(to: standby.port) })
        } catch {
            await proxy.stop()
            throw error
        }
        await proxy.stop()
        figures.check()
    }
}

/// One failover under a stream of check-ins, from the servers' start to the figures.
private struct Failover {
    let primary: PostgresServer
    let standby: PostgresServer
    /// How the servers reach the database, for the figures printed.
    let form: String
    /// Students checking in, half on each server, one released every `pace`.
    static let students = 48
    static let pace = Duration.milliseconds(150)
    /// The primary crashes once this many have been acknowledged: mid-stream, with most still to come.
    static let crashAfter = 16
    static let recoveryLimit = Duration.seconds(10)
    /// The shortest outage, from the crash to the promotion.
    static let outage = Duration.seconds(3)

    /// What the test measured, and what each check-in was told.
    struct Figures {
        var form: String
        var sent = 0
        var acknowledged: Set<Int64> = []
        var repeatsAcknowledged = 0
        var refusals = 0
        var wrong: [String] = []
        var unanswered: [String] = []
        var notCheckedIn = 0
        var outage = Duration.zero
        var recovery: [Duration?] = [nil, nil]
        var recorded: Set<Int64> = []
        var seenByRoom: Set<Int64> = []
        var inSnapshots: [Set<Int64>] = []
        var roomCloses: [String] = []
        var roomRefusals = 0

        /// How many answers of each kind, such as "check-in 500 internal_error ×12".
        static func tally(_ answers: [String]) -> String {
            Dictionary(grouping: answers, by: { $0 }).sorted { $0.value.count > $1.value.count }
                .map { "\($0.key) ×\($0.value.count)" }.joined(separator: ", ")
        }

        func check() {
            let seconds = recovery.map { $0.map { String(format: "%.2f s", $0.seconds) } ?? "never" }
            print(
                """
                Failover (\(form)): \(sent) students checked in, \(acknowledged.count) acknowledged \
                (\(repeatsAcknowledged) as a repeat after a lost answer), \(refusals) answers were 503, \
                \(wrong.count) other answers, \(unanswered.count) requests unanswered, \(notCheckedIn) never checked \
                in; crash to promotion \(String(format: "%.2f s", outage.seconds)); check-ins taken again after the \
                promotion by server A in \(seconds[0]), by server B in \(seconds[1]); \(recorded.count) on record in \
                the promoted standby; the room saw \(seenByRoom.count) check-ins, closed \(roomCloses.count) times \
                (\(roomCloses.joined(separator: ", "))) and was refused \(roomRefusals) times while reopening.
                """)
            let (wrongAnswers, unansweredRequests) = (wrong.count, unanswered.count)
            #expect(wrongAnswers == 0, "answers other than 201 or 503 database_unavailable: \(Self.tally(wrong))")
            #expect(unansweredRequests == 0, "requests without an answer: \(Self.tally(unanswered))")
            #expect(notCheckedIn == 0, "students who never got their check-in acknowledged")
            #expect(acknowledged.isSubset(of: recorded), "acknowledged but lost: \(acknowledged.subtracting(recorded))")
            for (server, time) in recovery.enumerated() {
                #expect(
                    time.map { $0 < Failover.recoveryLimit } == true,
                    "server \(server == 0 ? "A" : "B") took check-ins again after \(seconds[server])")
            }
            #expect(
                acknowledged.isSubset(of: seenByRoom),
                "check-ins the teacher's room never showed: \(acknowledged.subtracting(seenByRoom))")
            for snapshot in inSnapshots {
                #expect(
                    acknowledged.isSubset(of: snapshot),
                    "missing from a fresh room: \(acknowledged.subtracting(snapshot))")
            }
            #expect(
                roomCloses.allSatisfy { $0 == "1013" }, "the room closed other than to resume later: \(roomCloses)")
        }
    }

    /// Starts two servers on `databaseURL`, opens the room, streams the check-ins, crashes the primary (just after
    /// `atCrash`) and promotes the standby midway (then `afterPromotion`, as an operator moves a proxy), and gathers
    /// the figures.
    func run(
        databaseURL: String, atCrash: @escaping @Sendable () -> Void = {},
        afterPromotion: @escaping @Sendable () -> Void = {}
    ) async throws -> Figures {
        try await withServer(databaseURL: databaseURL, setup: .live) { first in
            try await withServer(databaseURL: databaseURL, setup: .live) { second in
                try await stream(over: [first, second], atCrash: atCrash, afterPromotion: afterPromotion)
            }
        }
        return outcome.withLockedValue { $0 }
    }

    let outcome: NIOLockedValueBox<Figures>

    init(primary: PostgresServer, standby: PostgresServer, form: String) {
        self.primary = primary
        self.standby = standby
        self.form = form
        outcome = NIOLockedValueBox(Figures(form: form))
    }

    private func stream(
        over servers: [API], atCrash: @escaping @Sendable () -> Void, afterPromotion: @escaping @Sendable () -> Void
    ) async throws {
        let room = try await Classroom.open(servers[0])
        var students: [Account] = []
        for number in 0..<Self.students { students.append(try await room.enrol(servers[0], "Student \(number)")) }
        let probes = [try await room.enrol(servers[0], "Probe A"), try await room.enrol(servers[0], "Probe B")]
        let tally = Tally()
        let watch = RoomWatch()
        let watching = Task { await watch.follow(servers[0], room) }
        defer { watching.cancel() }
        try await watch.opened()

        let startedAt = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for (index, student) in students.enumerated() {
                group.addTask {
                    try? await Task.sleep(until: startedAt + Self.pace * index)
                    await tally.checkIn(servers, index % 2, room, student, every: .milliseconds(250))
                }
            }
            group.addTask {
                await failOver(
                    tally, probes: probes, servers: servers, room: room, atCrash: atCrash,
                    afterPromotion: afterPromotion)
            }
        }

        // Every acknowledged check-in reaches the room that stayed open, over however many reconnections.
        let acknowledged = tally.figures.acknowledged
        try await waitUntil("the room shows every acknowledged check-in", timeout: .seconds(60)) {
            acknowledged.isSubset(of: watch.seen)
        }
        watch.stop()
        await watching.value
        var snapshots: [Set<Int64>] = []
        for (server, api) in servers.enumerated() {
            do {
                snapshots.append(try await RoomWatch.snapshot(api, room))
            } catch {
                Issue.record("a fresh room on server \(server == 0 ? "A" : "B") did not open: \(error)")
            }
        }
        let rows = try await offThread {
            try standby.query("SELECT student_id FROM attendance WHERE session_id = \(room.sessionID)")
        }
        outcome.withLockedValue { figures in
            let form = figures.form
            figures = tally.figures
            figures.form = form
            figures.sent = Self.students + probes.count
            figures.recorded = Set(rows.split(separator: "\n").compactMap { Int64($0) })
            figures.seenByRoom = watch.seen
            figures.inSnapshots = snapshots
            figures.roomCloses = watch.closes
            figures.roomRefusals = watch.refusals
        }
    }

    /// The operator's part: crashes the primary mid-stream, promotes the standby once both servers have said the
    /// database is unavailable for a while, and measures how soon each server takes a check-in after that.
    private func failOver(
        _ tally: Tally, probes: [Account], servers: [API], room: Classroom, atCrash: @escaping @Sendable () -> Void,
        afterPromotion: @escaping @Sendable () -> Void
    ) async {
        do {
            try await waitUntil("\(Self.crashAfter) check-ins acknowledged", timeout: .seconds(120)) {
                tally.figures.acknowledged.count >= Self.crashAfter
            }
            let crashed = ContinuousClock.now
            tally.crashed()
            atCrash()
            try await primary.crash()
            // An operator takes seconds to promote: the outage lasts until both servers have answered it and for
            // the check-ins of several students, and at most 30 s, to report how it was answered whatever it was.
            let deadline = crashed + .seconds(30)
            while !(tally.bothRefused && ContinuousClock.now - crashed >= Self.outage) && ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await offThread { try standby.promote() }
            afterPromotion()
            let promoted = ContinuousClock.now
            tally.promoted(after: promoted - crashed)
            await withTaskGroup(of: Void.self) { group in
                for server in servers.indices {
                    group.addTask {
                        if await tally.checkIn(servers, server, room, probes[server], every: .milliseconds(50)) {
                            tally.recovered(server, after: ContinuousClock.now - promoted)
                        }
                    }
                }
            }
        } catch {
            Issue.record("the failover itself failed: \(error)")
        }
    }
}

/// What the check-ins were told, from every student's task.
private final class Tally: Sendable {
    private let state = NIOLockedValueBox(Failover.Figures(form: ""))
    private let refusedAfterCrash = NIOLockedValueBox<[Bool]?>(nil)

    var figures: Failover.Figures { state.withLockedValue { $0 } }
    var bothRefused: Bool { refusedAfterCrash.withLockedValue { $0 == [true, true] } }

    func crashed() { refusedAfterCrash.withLockedValue { $0 = [false, false] } }
    func promoted(after outage: Duration) { state.withLockedValue { $0.outage = outage } }
    func recovered(_ server: Int, after time: Duration) { state.withLockedValue { $0.recovery[server] = time } }

    /// Checks `student` in on `servers[server]`, scanning afresh each time, until acknowledged (true) or given up;
    /// a 503 is tried again after `every`, as the check-in page does, though sooner than its Retry-After.
    @discardableResult
    func checkIn(
        _ servers: [API], _ server: Int, _ room: Classroom, _ student: Account, every pause: Duration
    ) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            switch await Self.attempt(servers[server], room, student) {
            case .acknowledged(let status):
                state.withLockedValue { figures in
                    figures.acknowledged.insert(student.id)
                    if status == .ok { figures.repeatsAcknowledged += 1 }
                }
                return true
            case .refused:
                state.withLockedValue { $0.refusals += 1 }
                refusedAfterCrash.withLockedValue { if $0 != nil { $0![server] = true } }
            case .wrong(let what):
                state.withLockedValue { $0.wrong.append("server \(server == 0 ? "A" : "B"): \(what)") }
            case .unanswered(let what):
                state.withLockedValue { $0.unanswered.append("server \(server == 0 ? "A" : "B"): \(what)") }
            }
            try? await Task.sleep(for: pause)
        }
        state.withLockedValue { $0.notCheckedIn += 1 }
        return false
    }

    enum Outcome {
        /// 201, or 200 for a check-in made by an attempt whose answer was lost.
        case acknowledged(HTTPResponse.Status)
        /// 503 `database_unavailable` with `Retry-After`: nothing was done, try again.
        case refused
        case wrong(String)
        case unanswered(String)
    }

    /// One check-in as a phone makes it: the projected code, the scan, the ticket sent.
    static func attempt(_ api: API, _ room: Classroom, _ student: Account) async -> Outcome {
        do {
            let projector = try await room.projector(api)
            if let outcome = judge(projector, "projector", success: [.ok]) { return outcome }
            guard let url = projector.string("url"), let link = url.range(of: "/C/") else {
                return .wrong("a projector without a link: \(projector.text)")
            }
            let scanned = try await api.call(.get, String(url[link.lowerBound...]), as: student)
            if let outcome = judge(scanned, "scan", success: [.ok]) { return outcome }
            let checkedIn = try await api.call(
                .post, "/api/v1/check-ins", as: student, json: ["ticket": scanned.string("ticket") ?? ""])
            return judge(checkedIn, "check-in", success: [.created, .ok]) ?? .acknowledged(checkedIn.status)
        } catch {
            return .unanswered("\(error)")
        }
    }

    /// Nothing for a success; otherwise whether the answer is the outage's 503 or something else.
    static func judge(_ reply: Reply, _ step: String, success: [HTTPResponse.Status]) -> Outcome? {
        if success.contains(reply.status) { return nil }
        if reply.status == .serviceUnavailable && reply.errorCode == "database_unavailable"
            && Int(reply.headers[.retryAfter] ?? "") ?? 0 > 0
        {
            return .refused
        }
        return .wrong("\(step) \(reply.status.code) \(reply.errorCode ?? String(reply.text.prefix(80)))")
    }
}

/// The teacher's live room, reopened after its last event whenever it closes, as the room page does.
private final class RoomWatch: Sendable {
    private struct State {
        var seen: Set<Int64> = []
        var last: Int64?
        var closes: [String] = []
        var refusals = 0
        var stopped = false
    }
    private let state = NIOLockedValueBox(State())

    var seen: Set<Int64> { state.withLockedValue { $0.seen } }
    var closes: [String] { state.withLockedValue { $0.closes } }
    var refusals: Int { state.withLockedValue { $0.refusals } }
    func stop() { state.withLockedValue { $0.stopped = true } }

    /// Waits for the room's snapshot, after which every check-in is an event.
    func opened() async throws {
        try await waitUntil("the room opens") { state.withLockedValue { $0.last != nil } }
    }

    func follow(_ api: API, _ room: Classroom) async {
        while !state.withLockedValue({ $0.stopped }) && !Task.isCancelled {
            let after = state.withLockedValue { $0.last }
            let path = "/api/v1/sessions/\(room.sessionID)/live" + (after.map { "?after=\($0)" } ?? "")
            do {
                let closed = try await api.client.ws(
                    path, configuration: .init(additionalHeaders: [.authorization: "Bearer \(room.teacher.token)"])
                ) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: 1 << 22) {
                                if case .text(let text) = message { self.received(text) }
                            }
                        }
                        group.addTask {
                            while !self.state.withLockedValue({ $0.stopped }) {
                                try await Task.sleep(for: .milliseconds(50))
                            }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
                if !state.withLockedValue({ $0.stopped }) {
                    let code = closed.map { $0.closeCode == LiveSocket.resumeLater ? "1013" : "\($0.closeCode)" }
                    state.withLockedValue { $0.closes.append(code ?? "no close frame") }
                }
            } catch {
                // The upgrade is refused while no database answers.
                state.withLockedValue { $0.refusals += 1 }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private func received(_ text: String) {
        let message = Reply(status: .ok, headers: [:], text: text)
        state.withLockedValue { state in
            switch message.string("type") {
            case "snapshot": state.last = message.int("lastEventId")
            case "event":
                state.last = message.int("id") ?? state.last
                if message.string("kind") == "checked_in", let student = message.int("data.studentId") {
                    state.seen.insert(student)
                }
            default: break
            }
        }
    }

    /// The students a freshly opened room shows as checked in.
    static func snapshot(_ api: API, _ room: Classroom) async throws -> Set<Int64> {
        let checkedIn = NIOLockedValueBox<Set<Int64>>([])
        try await api.client.ws(
            "/api/v1/sessions/\(room.sessionID)/live",
            configuration: .init(additionalHeaders: [.authorization: "Bearer \(room.teacher.token)"])
        ) { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 22) {
                guard case .text(let text) = message else { continue }
                let snapshot = Reply(status: .ok, headers: [:], text: text)
                #expect(snapshot.string("type") == "snapshot", "\(text.prefix(200))")
                let students = snapshot.list("students").filter { $0["status"] != nil }
                checkedIn.withLockedValue { $0 = Set(students.compactMap { ($0["id"] as? NSNumber)?.int64Value }) }
                break
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        return checkedIn.withLockedValue { $0 }
    }
}
