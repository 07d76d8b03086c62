import Foundation
import NIOConcurrencyHelpers
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Check-in latency while the heaviest upload load the limits allow runs: three people each sending their hour's
/// ten uploads of 5,000 encounters back to back, every encounter one Rollcall issued. A measurement, not a check:
/// it runs with `ROLLCALL_MEASURE=1` and prints the percentiles.
@Suite(
    "Check-ins under upload load", .enabled(if: ProcessInfo.processInfo.environment["ROLLCALL_MEASURE"] == "1"),
    .timeLimit(.minutes(10)))
struct UploadLoadMeasurement {
    /// The server's proximity clock, moved a day on so that a day of issued pseudo-IDs has been broadcast.
    final class Clock: Sendable {
        let offset = NIOLockedValueBox<TimeInterval>(0)
        func now() -> Date { Date().addingTimeInterval(offset.withLockedValue { $0 }) }
    }

    static func checkIns(_ api: API, _ room: Classroom, _ students: [Account]) async throws -> [Double] {
        try await withThrowingTaskGroup(of: Double.self) { group in
            for batch in stride(from: 0, to: students.count, by: 8) {
                for student in students[batch..<min(batch + 8, students.count)] {
                    group.addTask {
                        let ticket = try await room.scan(api, as: student)
                        let start = ContinuousClock.now
                        let reply = try await api.call(
                            .post, "/api/v1/check-ins", as: student, json: ["ticket": ticket])
                        #expect(reply.status == .created, "\(reply.text)")
                        let elapsed = ContinuousClock.now - start
                        return elapsed.seconds * 1e3
                    }
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted()
        }
    }

    static func describe(_ label: String, _ sorted: [Double]) -> String {
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
        return String(
            format: "%@: n=%d p50=%.1f ms p99=%.1f ms max=%.1f ms", label, sorted.count, at(0.5), at(0.99),
            sorted.last ?? 0)
    }

    @Test func check_in_p99_while_the_heaviest_allowed_uploads_run() async throws {
        let clock = Clock()
        try await withServer(configure: { $0.clock = { clock.now() } }) { api in
            var pool: [(String, Date)] = []
            for phone in 0..<20 {
                let account = try await api.register("Phone \(phone)")
                let ids = try await ProximityServerTests.phone(api, account, days: 1)
                pool += ids.map { ($0.value, $0.key) }
            }
            let uploaders = [
                try await api.register("Up One"), try await api.register("Up Two"), try await api.register("Up Three"),
            ]
            for uploader in uploaders { _ = try await ProximityServerTests.phone(api, uploader) }
            clock.offset.withLockedValue { $0 = 86_400 + 600 }
            let calm = try await Classroom.open(api, teacher: "Calm Teacher", student: "Calm 0")
            let busy = try await Classroom.open(api, teacher: "Busy Teacher", student: "Busy 0")
            var calmStudents = [calm.student]
            var busyStudents = [busy.student]
            for n in 1..<120 {
                calmStudents.append(try await calm.enrol(api, "Calm \(n)"))
                busyStudents.append(try await busy.enrol(api, "Busy \(n)"))
            }
            let baseline = try await Self.checkIns(api, calm, calmStudents)
            let issued = pool
            // The bodies are written before the clock starts: the load generator shares this process's cores with
            // the server, and writing 30 bodies of 5,000 encounters took more of them than the server's work did.
            var bodies: [[[UInt8]]] = []
            for index in uploaders.indices {
                bodies.append(
                    try (0..<10).map { round in
                        let offset = (index * 700 + round * 300) % issued.count
                        let encounters = (0..<5_000).map { issued[($0 + offset) % issued.count] }.map { id, window in
                            ProximityServerTests.encounter(id, from: window.addingTimeInterval(10))
                        }
                        return Array(try JSONSerialization.data(withJSONObject: ["encounters": encounters]))
                    })
            }
            let written = bodies
            let started = ContinuousClock.now
            let (loaded, uploads) = try await withThrowingTaskGroup(of: [Double].self) { group in
                for (index, uploader) in uploaders.enumerated() {
                    group.addTask {
                        var statuses: [Double] = []
                        for round in 0..<10 {
                            let reply = try await api.call(
                                .post, "/api/v1/me/proximity-encounters", as: uploader, raw: written[index][round],
                                contentType: "application/json")
                            #expect(reply.status == .created, "\(reply.text.prefix(300))")
                            statuses.append(Double(reply.int("upload.kept") ?? -1))
                        }
                        return statuses
                    }
                }
                // The room checks in once the uploads are under way.
                try await Task.sleep(for: .milliseconds(300))
                let loaded = try await Self.checkIns(api, busy, busyStudents)
                var kept: [Double] = []
                for try await statuses in group { kept += statuses }
                return (loaded, kept)
            }
            let took = ContinuousClock.now - started
            print(Self.describe("check-ins, no uploads", baseline))
            print(Self.describe("check-ins, 3 x 10 uploads of 5,000", loaded))
            print(
                "uploads: \(uploads.count), kept per upload \(uploads.min() ?? 0)...\(uploads.max() ?? 0), all in \(took)"
            )
        }
    }
}
