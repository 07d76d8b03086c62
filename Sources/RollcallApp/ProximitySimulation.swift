import Foundation
import RollcallClient

/// Many phones with the Rollcall app in simulated places, against a real server: each runs its own
/// `ProximityTracer` on a `SimulatedAir` radio, on a simulated clock. What the phones could hear of each other is
/// recorded beside, so that a report can be compared with what really happened. Used by the tests and by
/// `rollcall proximity simulate`.
@MainActor
public final class ProximitySimulation {
    /// One simulated phone: its owner's name, tracer and radio.
    public struct Phone {
        public var name: String
        public var tracer: ProximityTracer
        public var radio: SimulatedAir.SimulatedRadio
    }

    /// Two phones, by index, the first listening and hearing the second.
    public struct Pair: Hashable, Sendable {
        public var listener: Int
        public var speaker: Int

        public init(listener: Int, speaker: Int) {
            self.listener = listener
            self.speaker = speaker
        }
    }

    public let air = SimulatedAir()
    public private(set) var phones: [Phone] = []
    /// Seconds each phone could hear each other phone, as the simulation placed them.
    public private(set) var heard: [Pair: TimeInterval] = [:]
    /// The simulated moment; the server under test may read the same clock (`clockMoved`).
    public private(set) var now: Date {
        didSet { clockMoved?(now) }
    }
    /// Told each new moment, before the phones act at it.
    public var clockMoved: ((Date) -> Void)?

    public init(start: Date) {
        now = start
    }

    /// Adds a phone for a signed-in person, with its log at `storage` when given.
    @discardableResult
    public func addPhone(name: String, rollcall: Rollcall, storage: URL? = nil) -> Phone {
        let radio = air.radio()
        let phone = Phone(
            name: name, tracer: ProximityTracer(rollcall: rollcall, radio: radio, storage: storage), radio: radio)
        phones.append(phone)
        return phone
    }

    /// Turns proximity on for every phone.
    public func turnOn() async throws {
        for phone in phones { try await phone.tracer.turnOn(at: now) }
    }

    /// Runs `minutes` from now in steps of `step` seconds: before each step, `place` says where each phone is
    /// (`nil`: switched off or away from everyone); every phone ticks, then the air carries what is broadcast.
    public func run(
        minutes: Double, step: TimeInterval = 30, place: (_ phone: Int, _ at: Date) -> String?
    ) async {
        let end = now.addingTimeInterval(minutes * 60)
        while now < end {
            for (index, phone) in phones.enumerated() { phone.radio.place = place(index, now) }
            for phone in phones { await phone.tracer.tick(at: now) }
            record(step)
            air.step(at: now)
            now = now.addingTimeInterval(step)
        }
    }

    /// Moves the clock without running it: phones switched off, or nobody near anybody.
    public func skip(to moment: Date) {
        for phone in phones { phone.radio.place = nil }
        now = max(now, moment)
    }

    /// Every phone shows its owner what an upload would hold, and the owner agrees: the phones at `indices` upload.
    public func upload(_ indices: [Int], answering requestID: Int64? = nil) async throws
        -> ProximityTracer.UploadReceipt
    {
        var total = ProximityTracer.UploadReceipt(sent: 0, kept: 0, unknown: 0)
        for index in indices {
            let tracer = phones[index].tracer
            let receipt = try await tracer.upload(tracer.planUpload(answering: requestID))
            total.sent += receipt.sent
            total.kept += receipt.kept
            total.unknown += receipt.unknown
        }
        return total
    }

    /// The people whose phones could hear `index`'s or be heard by it, by index.
    public func contacts(of index: Int) -> Set<Int> {
        Set(
            heard.keys.compactMap { pair in
                pair.listener == index ? pair.speaker : pair.speaker == index ? pair.listener : nil
            })
    }

    private func record(_ step: TimeInterval) {
        var byPlace: [String: [Int]] = [:]
        for (index, phone) in phones.enumerated() {
            if let place = phone.radio.place { byPlace[place, default: []].append(index) }
        }
        for (_, here) in byPlace where here.count > 1 {
            for listener in here where phones[listener].radio.listening {
                for speaker in here where speaker != listener && phones[speaker].radio.advertised != nil {
                    heard[Pair(listener: listener, speaker: speaker), default: 0] += step
                }
            }
        }
    }
}
