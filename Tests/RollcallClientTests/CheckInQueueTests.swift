import ClientTestSupport
import Foundation
import RollcallClient
import ServerTestSupport
import Testing

/// The offline queue across an app's restart, and a scan that waited past its ticket.
@Suite("RollcallClient offline check-in queue", .timeLimit(.minutes(2)))
struct CheckInQueueTests {
    @Test func a_queued_scan_survives_a_restart_and_is_sent_once() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["period": 60])
            let network = try await NetworkSwitch.start(to: try #require(api.client.port))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let phone = try api.rollcall(room.student, through: network)
            let proof = CheckInProof(deviceID: "phone-0001")

            let scan = try await phone.scan(link: link)
            await network.goOffline()
            let before = CheckInQueue(rollcall: phone, proof: proof, storage: file)
            let queued = await before.checkIn(scan: scan)
            #expect(await before.pending.count == 1, "\(queued)")

            // The app is closed and opened again, with the network back.
            network.goOnline()
            let after = CheckInQueue(rollcall: phone, proof: proof, storage: file)
            #expect(await after.pending.map(\.ticket) == [scan.ticket])
            let sent = await after.flush()
            #expect(sent.count == 1)
            if case .checkedIn(let result) = sent.first?.outcome {
                #expect(result.new && result.status == .present)
            } else {
                Issue.record("the restored scan was not checked in: \(sent)")
            }
            #expect(await after.pending.isEmpty)
            #expect(await CheckInQueue(rollcall: phone, proof: proof, storage: file).pending.isEmpty, "kept as sent")
            await network.stop()
        }
    }

    @Test func a_queue_that_cannot_be_kept_or_read_says_so() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["period": 60])
            let network = try await NetworkSwitch.start(to: try #require(api.client.port))
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let phone = try api.rollcall(room.student, through: network)
            let proof = CheckInProof(deviceID: "phone-0001")
            let nowhere = FileManager.default.temporaryDirectory
                .appendingPathComponent("missing-\(UUID())/queue.json")
            let unkept = CheckInQueue(rollcall: phone, proof: proof, storage: nowhere)
            #expect(await unkept.storageProblem == nil, "no file yet is an empty queue")
            await network.goOffline()
            _ = await unkept.checkIn(scannedLink: link)
            #expect(await unkept.pending.count == 1, "still waits in memory")
            #expect(await unkept.storageProblem?.contains("could not be kept") == true)

            let damaged = FileManager.default.temporaryDirectory.appendingPathComponent("queue-\(UUID()).json")
            defer { try? FileManager.default.removeItem(at: damaged) }
            try Data("[{\"id\": 1".utf8).write(to: damaged)
            let unread = CheckInQueue(rollcall: phone, proof: proof, storage: damaged)
            #expect(await unread.storageProblem?.contains("could not be read") == true)
            #expect(await unread.pending.isEmpty)
            network.goOnline()
            await network.stop()
        }
    }

    @Test func a_scan_that_waited_past_its_ticket_is_dropped_unsent() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["period": 60])
            let network = try await NetworkSwitch.start(to: try #require(api.client.port))
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let clock = PhoneClock()
            let queue = CheckInQueue(
                rollcall: try api.rollcall(room.student, through: network), proof: CheckInProof(deviceID: "phone-0001"),
                now: { clock.now })
            await network.goOffline()
            let queued = await queue.checkIn(scannedLink: link)
            #expect(await queue.pending.count == 1, "\(queued)")

            network.goOnline()
            clock.now = clock.now.addingTimeInterval(121)
            let before = try await api.snapshot()
            let sent = await queue.flush()
            #expect(sent.count == 1)
            if case .refused(let error) = sent.first?.outcome {
                #expect(error.code == "code_expired" && error.status == nil, "refused here, not by the server")
            } else {
                Issue.record("a scan two minutes old was sent: \(sent)")
            }
            #expect(await queue.pending.isEmpty)
            #expect(try await api.snapshot() == before, "nothing reached the server")
            await network.stop()
        }
    }
}

extension CheckInQueueTests {
    /// A refusal the phone makes itself (no passkey on it for a course that asks for one) is not a lost network.
    @Test func a_refusal_made_on_the_phone_is_not_queued() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api, settings: ["period": 60])
            try await api.requireVerification(room.teacher, courseID: room.courseID)
            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            let queue = CheckInQueue(
                rollcall: try api.rollcall(room.student), proof: CheckInProof(deviceID: "phone-0001"))
            let outcome = await queue.checkIn(scannedLink: link)
            if case .refused(let error) = outcome {
                #expect(error.code == "verification_required" && !error.isNetworkFailure, "\(error)")
            } else {
                Issue.record("a student with no passkey, for a course that asks for one: \(outcome)")
            }
            #expect(await queue.pending.isEmpty, "nothing left to send")
        }
    }
}

/// The phone's clock, moved by the test.
final class PhoneClock: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Date()
    var now: Date {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
