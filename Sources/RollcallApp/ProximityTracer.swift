import Foundation
import Observation
import RollcallClient
import RollcallProtocol

/// The phone's proximity evidence (seed 001's APRICOT): broadcasts this window's pseudo-ID, listens for the phones
/// nearby a minute at a time, keeps what it heard on the phone for 30 days, and uploads it only when the person
/// agrees to what the upload holds.
///
/// Plain Swift over a `Radio`, driven by `tick(at:)` (the app calls it every few seconds with the clock; tests and
/// `rollcall proximity simulate` with a simulated clock), so that a week runs in seconds.
@MainActor @Observable
public final class ProximityTracer {
    /// Seconds each pseudo-ID is broadcast.
    public static let windowSeconds = TimeInterval(Proximity.windowSeconds)
    /// Listening for a minute, then resting a minute: every five-minute window is heard in, at half the battery.
    public static let listenSeconds: TimeInterval = 60
    public static let restSeconds: TimeInterval = 60
    /// Days the phone keeps what it heard.
    public static let keepDays = 30
    /// Pseudo-IDs are asked for again when less than this much time is left of them.
    public static let refillAhead: TimeInterval = 86_400
    /// Days of pseudo-IDs asked for at a time.
    public static let daysPerRequest = Proximity.defaultIssueDays
    /// After a failed request for pseudo-IDs (no network), the next try waits this long.
    public static let retryAfter: TimeInterval = 600
    /// What a check-in brings: the pseudo-IDs heard this recently.
    public static let recentSeconds = Proximity.heardRecently
    /// The most encounters one upload carries, as the server takes them.
    public static let uploadLimit = Proximity.uploadLimit

    /// What the phone keeps between launches.
    struct Log: Codable, Equatable {
        var on = false
        var ids: [PseudoID] = []
        var encounters: [String: Encounter] = [:]
        var lastUpload: Date?
    }

    /// What an upload will hold, shown to the person before they agree.
    public struct UploadPlan: Sendable, Equatable {
        public var count: Int
        public var from: Date?
        public var until: Date?
        /// The health officer's request this upload answers, if any.
        public var requestID: Int64?
    }

    /// What the server did with an upload (in parts, when it holds more than one request takes).
    public struct UploadReceipt: Sendable, Equatable {
        public var sent: Int
        public var kept: Int
        /// Not Rollcall's pseudo-IDs, heard outside their window, or this phone's own: ignored by the server.
        public var unknown: Int
    }

    public let rollcall: Rollcall
    private let radio: any Radio
    private let storage: URL?
    private var log: Log
    private var nextFetch = Date.distantPast
    /// The log changed since it was last written.
    private var dirty = false
    private var lastPurge = Date.distantPast

    /// Whether proximity is on.
    public var isOn: Bool { log.on }
    /// The pseudo-ID being broadcast now, if any.
    public private(set) var broadcasting: String?
    public private(set) var listening = false
    /// How many pseudo-IDs of other phones the phone keeps.
    public var encounterCount: Int { log.encounters.count }
    /// The end of the last window the phone has a pseudo-ID for.
    public var idsUntil: Date? { log.ids.last.map { $0.windowStart.addingTimeInterval(Self.windowSeconds) } }
    /// Health officers' requests for an upload, not yet answered, as of the last `refresh()`.
    public private(set) var requests: [ProximityRequest] = []
    /// The last problem talking to the server, for the screen.
    public private(set) var problem: RollcallError?
    /// Why the log could not be read from or kept on this phone, for the screen; `nil` while it is.
    public private(set) var storageProblem: String?

    /// A tracer for the signed-in person on this phone, keeping its log at `storage` (a file) when given.
    public init(rollcall: Rollcall, radio: any Radio, storage: URL? = nil) {
        self.rollcall = rollcall
        self.radio = radio
        self.storage = storage
        if let storage, FileManager.default.fileExists(atPath: storage.path) {
            do {
                log = try JSONDecoder().decode(Log.self, from: Data(contentsOf: storage))
            } catch {
                log = Log()
                storageProblem =
                    "The nearby phones' log on this device could not be read: \(error.localizedDescription)"
            }
        } else {
            log = Log()
        }
        radio.heard = { [weak self] sighting in self?.hear(sighting) }
    }

    /// Turns proximity on: the server starts issuing pseudo-IDs, and the radio starts at the next tick.
    public func turnOn(at now: Date) async throws {
        do {
            _ = try await rollcall.setProximity(on: true)
        } catch {
            throw remember(error)
        }
        log.on = true
        try await fetch(at: now)
        await tick(at: now)
    }

    /// Turns proximity off: the radio stops, the phone forgets what it heard, and so does the server.
    public func turnOff() async throws {
        do {
            _ = try await rollcall.setProximity(on: false)
        } catch {
            throw remember(error)
        }
        forget()
    }

    /// Stops the radio and forgets everything the phone kept.
    private func forget() {
        log = Log()
        radio.advertise(nil)
        radio.listen(false)
        broadcasting = nil
        listening = false
        save()
    }

    /// One moment of the phone's life: rotates the broadcast, follows the listening cycle, forgets what is older
    /// than 30 days, and asks for pseudo-IDs before they run out.
    public func tick(at now: Date) async {
        defer { if dirty { save() } }
        // Forgetting is hourly: a tick comes every few seconds, and a month of encounters is thousands.
        if now.timeIntervalSince(lastPurge) >= 3600 || now < lastPurge {
            lastPurge = now
            let oldest = now.addingTimeInterval(-Double(Self.keepDays) * 86_400)
            let count = log.encounters.count
            log.encounters = log.encounters.filter { $0.value.lastSeen >= oldest }
            dirty = dirty || log.encounters.count != count
        }
        if let first = log.ids.first, first.windowStart.addingTimeInterval(Self.windowSeconds) <= now {
            log.ids.removeAll { $0.windowStart.addingTimeInterval(Self.windowSeconds) <= now }
            dirty = true
        }
        guard log.on else { return }
        if (idsUntil ?? .distantPast) < now.addingTimeInterval(Self.refillAhead), now >= nextFetch {
            try? await fetch(at: now)
        }
        let current = log.ids.last { $0.windowStart <= now }?.id
        if current != broadcasting {
            broadcasting = current
            radio.advertise(current)
        }
        let cycle = now.timeIntervalSince1970.truncatingRemainder(dividingBy: Self.listenSeconds + Self.restSeconds)
        let listen = cycle < Self.listenSeconds
        if listen != listening {
            listening = listen
            radio.listen(listen)
        }
    }

    /// A sighting from the radio: merged into what the phone keeps of that pseudo-ID.
    func hear(_ sighting: Sighting) {
        guard log.on, listening, sighting.id != broadcasting, Proximity.pseudoID(sighting.id) != nil else { return }
        let id = sighting.id.lowercased()
        if var known = log.encounters[id] {
            known.firstSeen = min(known.firstSeen, sighting.at)
            known.lastSeen = max(known.lastSeen, sighting.at)
            known.signal = max(known.signal, sighting.signal)
            log.encounters[id] = known
        } else {
            log.encounters[id] = Encounter(
                heard: id, firstSeen: sighting.at, lastSeen: sighting.at, signal: sighting.signal)
        }
        dirty = true
    }

    /// The pseudo-IDs heard in the last few minutes, for a check-in; none while proximity is off.
    public func heardRecently(at now: Date) -> [String] {
        guard log.on else { return [] }
        let since = now.addingTimeInterval(-Self.recentSeconds)
        return log.encounters.values.filter { $0.lastSeen >= since && $0.firstSeen <= now }.map(\.heard).sorted()
    }

    /// What an upload would hold now: everything kept, the count and the days it spans. Nothing leaves the phone
    /// until the person agrees to this plan (`upload(_:)`).
    public func planUpload(answering requestID: Int64? = nil) -> UploadPlan {
        let kept = log.encounters.values
        return UploadPlan(
            count: kept.count, from: kept.map(\.firstSeen).min(), until: kept.map(\.lastSeen).max(),
            requestID: requestID)
    }

    /// Uploads what the person agreed to: the encounters of `plan` (those heard within its days), in parts of at
    /// most what the server takes at once.
    public func upload(_ plan: UploadPlan) async throws -> UploadReceipt {
        guard log.on, let from = plan.from, let until = plan.until else {
            return UploadReceipt(sent: 0, kept: 0, unknown: 0)
        }
        let agreed = log.encounters.values.filter { $0.firstSeen >= from && $0.lastSeen <= until }
            .sorted { ($0.firstSeen, $0.heard) < ($1.firstSeen, $1.heard) }
        var receipt = UploadReceipt(sent: 0, kept: 0, unknown: 0)
        for start in stride(from: 0, to: agreed.count, by: Self.uploadLimit) {
            let part = Array(agreed[start..<min(start + Self.uploadLimit, agreed.count)])
            let answer: ProximityUpload
            do {
                answer = try await rollcall.uploadEncounters(part, requestID: plan.requestID)
            } catch {
                throw remember(error)
            }
            receipt.sent += answer.received
            receipt.kept += answer.kept
            receipt.unknown += answer.unknown
        }
        log.lastUpload = Date()
        save()
        if plan.requestID != nil { requests.removeAll { $0.id == plan.requestID } }
        return receipt
    }

    /// Reads the health officers' requests waiting for this person's upload.
    public func refresh() async throws {
        do {
            let standing = try await rollcall.proximity()
            requests = standing.requests.filter { $0.answeredAt == nil }
            if !standing.on && log.on {
                // Turned off elsewhere (another phone, the web): forget here too.
                forget()
            }
        } catch {
            throw remember(error)
        }
    }

    private func fetch(at now: Date) async throws {
        do {
            let fresh = try await rollcall.proximityIDs(days: Self.daysPerRequest)
            // The server replaced the windows still to come; the current one's earlier pseudo-ID stays valid.
            let firstNew = fresh.first?.windowStart ?? now
            log.ids = (log.ids.filter { $0.windowStart < firstNew } + fresh).sorted { $0.windowStart < $1.windowStart }
            nextFetch = now
            problem = nil
            save()
        } catch {
            nextFetch = now.addingTimeInterval(Self.retryAfter)
            throw remember(error)
        }
    }

    private func remember(_ error: any Error) -> RollcallError {
        let refusal = RollcallError.wrapping(error)
        problem = refusal
        return refusal
    }

    private func save() {
        dirty = false
        guard let storage else { return }
        do {
            try JSONEncoder().encode(log).write(to: storage, options: .atomic)
            storageProblem = nil
        } catch {
            storageProblem = "The nearby phones' log could not be kept on this device: \(error.localizedDescription)"
        }
    }
}
