import ClientTestSupport
import Foundation
import RollcallClient
import ServerTestSupport
import Testing

/// A whole lecture through the client: a teacher opens a session and watches the room, 40 students check in (ten
/// of them from phones that lost their network first), and the teacher's live sequence sees each exactly once,
/// across a drop of the teacher's own connection.
@Suite("A lecture through RollcallClient", .serialized, .timeLimit(.minutes(3)))
struct LectureTests {
    @Test func lecture_on_sqlite() async throws {
        try await withServer(setup: .live) { api in try await Self.lecture(api) }
    }

    @Test func lecture_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { api in try await Self.lecture(api) }
    }

    /// Two Rollcall processes on one PostgreSQL database behind a relay: the teacher's process goes away, the relay
    /// sends the reconnection to the other, and the room resumes there without losing or repeating a check-in.
    @Test func the_room_resumes_on_another_process() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            let room = try await Classroom.open(first, settings: ["period": 60])
            var enrolled = [room.student]
            for number in 2...10 { enrolled.append(try await room.enrol(first, "Student \(number)")) }
            let students = enrolled
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                let balancer = try await NetworkSwitch.start(to: try #require(first.client.port))
                let teacher = try first.rollcall(room.teacher, through: balancer)
                let log = RoomLog()
                let watching = Task {
                    for try await message in teacher.room(sessionID: room.sessionID) {
                        log.record(message)
                        if Set(log.checkedIn).count == 10 { return }
                    }
                }
                defer { watching.cancel() }
                try await eventually("the snapshot") { !log.snapshots.isEmpty }
                let link = try #require(try await teacher.projectorFrame(sessionID: room.sessionID).url)
                for (index, student) in students[..<5].enumerated() {
                    _ = try await first.rollcall(student).checkIn(
                        scannedLink: link, proof: CheckInProof(deviceID: "phone-\(1000 + index)"))
                }
                try await eventually("five check-ins through the first process") { Set(log.checkedIn).count == 5 }

                await balancer.goOffline()
                balancer.retarget(to: try #require(second.client.port))
                for (index, student) in students[5...].enumerated() {
                    _ = try await second.rollcall(student).checkIn(
                        scannedLink: link, proof: CheckInProof(deviceID: "phone-\(2000 + index)"))
                }
                balancer.goOnline()
                try await eventually("the other five, through the second process") { Set(log.checkedIn).count == 10 }
                try await watching.value
                #expect(log.checkedIn.count == 10 && log.snapshots.count == 1, "each once, one snapshot")
                await balancer.stop()
            }
        }
    }

    /// PostgreSQL stops while the teacher watches: the server closes the room with "try again later" and answers
    /// 503 meanwhile; the client keeps trying, and once the database is back the room resumes with what follows.
    @Test func the_room_resumes_after_the_database_comes_back() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { api in
            // The teacher's network, to see the client come back.
            let network = try await NetworkSwitch.start(to: try #require(api.client.port))
            do {
                try await Self.roomThroughOutage(api, postgres: postgres, teacherNetwork: network)
            } catch {
                await network.stop()
                throw error
            }
            await network.stop()
        }
    }

    /// The outage seen from the teacher's room, whose client goes through `teacherNetwork`.
    static func roomThroughOutage(_ api: API, postgres: PostgresServer, teacherNetwork: NetworkSwitch) async throws {
        let room = try await Classroom.open(api, settings: ["period": 60])
        let late = try await room.enrol(api, "Lou Late")
        let teacher = try api.rollcall(room.teacher, through: teacherNetwork)
        let log = RoomLog()
        let watching = Task {
            do {
                for try await message in teacher.room(sessionID: room.sessionID) {
                    log.record(message)
                    if log.checkedIn.count == 2 { return }
                }
                log.ended("finished")
            } catch {
                log.ended("\(error)")
                throw error
            }
        }
        defer { watching.cancel() }
        try await eventually("the snapshot") { !log.snapshots.isEmpty }
        let link = try #require(try await teacher.projectorFrame(sessionID: room.sessionID).url)
        _ = try await api.rollcall(room.student).checkIn(
            scannedLink: link, proof: CheckInProof(deviceID: "phone-0001"))
        try await eventually("the first check-in") { log.checkedIn.count == 1 }

        let connections = teacherNetwork.connectionsAdmitted
        try await postgres.halt()
        // The room closes ("try again later") when its read finds the database gone. That read waits up to the
        // lease deadline for a connection, and one made to a server already back answers it: the outage lasts until
        // the client has come back.
        try await eventually("the teacher's client reconnecting") {
            teacherNetwork.connectionsAdmitted > connections
        }
        // Coming back, the client is told 503 by the same address it asks when an upgrade fails: it keeps trying.
        try await eventually("the server says the database is out where the client asks") {
            try await api.call(
                .get, "/api/v1/sessions/\(room.sessionID)/live?after=1", as: room.teacher
            ).status == .serviceUnavailable
        }
        let countsBefore = log.all.count { if case .counts = $0 { true } else { false } }
        try await postgres.resume()

        try await eventually("the database answers again") { try await api.call(.get, "/healthz").status == .ok }
        // Resumed: a resumed room starts with the counts.
        try await eventually("the room resumed") {
            log.ending != nil || log.all.count { if case .counts = $0 { true } else { false } } > countsBefore
        }
        #expect(log.ending == nil, "the room ended: \(log.ending ?? "")")
        _ = try await api.rollcall(late).checkIn(scannedLink: link, proof: CheckInProof(deviceID: "phone-0002"))
        try await eventually("the check-in after the outage") { log.checkedIn.count == 2 }
        try await watching.value
        #expect(log.checkedIn == [room.student.id, late.id] && log.snapshots.count == 1, "each once, one snapshot")
    }

    static func lecture(_ api: API) async throws {
        // Setup: the teacher signs in through the client on a network of their own that the test can cut.
        let teacherNetwork = try await NetworkSwitch.start(to: try #require(api.client.port))
        let phoneNetwork = try await NetworkSwitch.start(to: try #require(api.client.port))
        do {
            try await lecture(api, teacherNetwork: teacherNetwork, phoneNetwork: phoneNetwork)
        } catch {
            await teacherNetwork.stop()
            await phoneNetwork.stop()
            throw error
        }
        await teacherNetwork.stop()
        await phoneNetwork.stop()
    }

    static func lecture(_ api: API, teacherNetwork: NetworkSwitch, phoneNetwork: NetworkSwitch) async throws {
        let account = try await api.register("Tess Teacher", role: "teacher")
        let (teacher, user) = try await api.rollcall(through: teacherNetwork)
            .signIn(email: account.email, password: API.password)
        #expect(user.id == account.id)
        let course = try await teacher.createCourse(name: "Biology 101", timeZone: "Europe/Berlin")
        var students: [Account] = []
        for number in 1...40 {
            let student = try await api.register(
                "Student \(number)", studentNumber: "S\(String(format: "%03d", number))")
            try await api.join(student, code: try #require(course.joinCode))
            students.append(student)
        }
        // Codes last a minute (plus a minute of grace), so that a scan made offline is still fresh on return.
        let session = try await teacher.openSession(
            courseID: course.id, title: "Week 1", settings: .init(period: 60, grace: 1))
        #expect(session.phase == .open)

        let log = RoomLog()
        let expected = students.count
        let watching = Task {
            for try await message in teacher.room(sessionID: session.id) {
                log.record(message)
                if Set(log.checkedIn).count == expected { return }
            }
        }
        defer { watching.cancel() }
        try await eventually("the snapshot") { !log.snapshots.isEmpty }
        #expect(log.snapshots.first?.students.count == 40)
        #expect(log.snapshots.first?.counts.notYet == 40)
        let link = try #require(try await teacher.projectorFrame(sessionID: session.id).url)

        // 20 students check in at once, each from their own phone.
        try await withThrowingTaskGroup(of: CheckInResult.self) { group in
            for (index, student) in students[0..<20].enumerated() {
                group.addTask {
                    try await api.rollcall(student).checkIn(
                        scannedLink: link, proof: CheckInProof(deviceID: "phone-\(1000 + index)"))
                }
            }
            for try await result in group { #expect(result.new && result.status == .present) }
        }
        try await eventually("the first 20 check-ins in the room") { Set(log.checkedIn).count == 20 }

        // The teacher's connection drops; 10 students check in meanwhile; it comes back and resumes.
        await teacherNetwork.goOffline()
        for (index, student) in students[20..<30].enumerated() {
            let result = try await api.rollcall(student).checkIn(
                scannedLink: link, proof: CheckInProof(deviceID: "phone-\(2000 + index)"))
            #expect(result.new)
        }
        teacherNetwork.goOnline()
        try await eventually("the check-ins made while the teacher was away") { Set(log.checkedIn).count == 30 }

        // Ten phones lose their network: five scan the code while offline, five had scanned it just before.
        let queues = try students[30..<40].enumerated().map { index, student in
            CheckInQueue(
                rollcall: try api.rollcall(student, through: phoneNetwork),
                proof: CheckInProof(deviceID: "phone-\(3000 + index)"))
        }
        var scans: [Scan] = []
        for queue in queues[5...] { scans.append(try await queue.rollcall.scan(link: link)) }
        await phoneNetwork.goOffline()
        for queue in queues[..<5] {
            let outcome = await queue.checkIn(scannedLink: link)
            if case .queued(let entry) = outcome {
                #expect(entry.ticket == nil && entry.code == Rollcall.code(inScannedLink: link))
            } else {
                Issue.record("an offline scan was not queued: \(outcome)")
            }
        }
        for (queue, scan) in zip(queues[5...], scans) {
            let outcome = await queue.checkIn(scan: scan)
            if case .queued(let entry) = outcome {
                #expect(entry.ticket == scan.ticket)
            } else {
                Issue.record("a check-in without network was not queued: \(outcome)")
            }
        }
        for queue in queues { #expect(await queue.pending.count == 1) }
        #expect(Set(log.checkedIn).count == 30, "nothing queued reached the server")

        // The network returns; each queue is flushed twice at once, and sends its check-in once.
        phoneNetwork.goOnline()
        try await withThrowingTaskGroup(of: [CheckInOutcome].self) { group in
            for queue in queues {
                group.addTask {
                    async let first = queue.flush()
                    async let second = queue.flush()
                    return (await first + second).map(\.outcome)
                }
            }
            for try await outcomes in group {
                let checkedIn = outcomes.compactMap { if case .checkedIn(let result) = $0 { result } else { nil } }
                #expect(checkedIn.count == 1 && checkedIn.first?.new == true, "\(outcomes)")
                #expect(outcomes.count == 1, "one flush sent it, the other found it on its way: \(outcomes)")
            }
        }
        for queue in queues { #expect(await queue.pending.isEmpty) }

        // The room saw each of the 40 exactly once, in event order, with one snapshot only.
        try await eventually("all 40 check-ins in the room") { Set(log.checkedIn).count == 40 }
        try await watching.value
        #expect(log.checkedIn.count == 40, "no check-in delivered twice")
        #expect(Set(log.checkedIn) == Set(students.map(\.id)))
        let ids = log.events.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "events in id order, none repeated")
        #expect(log.snapshots.count == 1, "a resumed connection starts after the last event, not with a snapshot")

        let closed = try await teacher.closeSession(session.id)
        #expect(closed.phase == .closed && closed.counts.present == 40)
    }
}
