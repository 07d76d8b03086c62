import Foundation
import Logging
import RollcallProtocol

/// A check-in the phone could not send yet: the scanned code, when it was scanned, and its ticket once the server
/// recorded the scan.
public struct PendingCheckIn: Sendable, Equatable, Codable, Identifiable {
    public var id: UUID
    /// The rotating code read from the projected QR code.
    public var code: String
    /// When the phone scanned it, by the phone's clock.
    public var scannedAt: Date
    /// The ticket, once the server recorded the scan.
    public var ticket: String?
    /// When the ticket runs out, by the server's clock.
    public var ticketExpiresAt: Date?
}

/// What became of a check-in handed to the queue.
public enum CheckInOutcome: Sendable, Equatable {
    /// Checked in (or already was: `new` is then false).
    case checkedIn(CheckInResult)
    /// No network: kept, and sent when `flush()` finds the network back.
    case queued(PendingCheckIn)
    /// Refused by the server, or its ticket ran out before the network came back (`code_expired`); not kept.
    case refused(RollcallError)
}

/// Check-ins that wait for the network: a scan made offline is kept with its scan time and sent when the network
/// returns, while its ticket is still valid.
///
/// The server's clock decides freshness, never the phone's: a code scanned offline can still be recorded only while
/// it is fresh on the server (its period plus grace); a scan the server already recorded keeps its whole ticket
/// (two minutes by default). Sending is idempotent (a repeated check-in answers the first result), each entry is
/// sent by one flush at a time, and an entry leaves the queue as soon as the server has answered it, so nothing is
/// sent twice.
public actor CheckInQueue {
    public let rollcall: Rollcall
    public let proof: CheckInProof
    /// How long a scan can wait for the network before no ticket could be had for it anyway.
    public let ticketLifetime: TimeInterval
    /// Where the queue is kept across launches; `nil` keeps it in memory only.
    public let storage: URL?
    private let now: @Sendable () -> Date
    /// Waiting check-ins, oldest scan first.
    public private(set) var pending: [PendingCheckIn]
    private var sending: Set<UUID> = []
    /// Why the waiting check-ins could not be read from or kept on this device, for the screen; `nil` while they are.
    public private(set) var storageProblem: String?
    private let logger = Logger(label: "rollcall.check-in-queue")

    public init(
        rollcall: Rollcall, proof: CheckInProof, storage: URL? = nil, ticketLifetime: TimeInterval = 120,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.rollcall = rollcall
        self.proof = proof
        self.storage = storage
        self.ticketLifetime = ticketLifetime
        self.now = now
        (pending, storageProblem) = Self.load(from: storage)
        if let storageProblem { logger.error("\(storageProblem)") }
    }

    private static func load(from storage: URL?) -> ([PendingCheckIn], String?) {
        guard let storage, FileManager.default.fileExists(atPath: storage.path) else { return ([], nil) }
        do {
            return (try LiveJSON.decoder.decode([PendingCheckIn].self, from: Data(contentsOf: storage)), nil)
        } catch {
            return ([], "The check-ins waiting on this device could not be read: \(error.localizedDescription)")
        }
    }

    /// Checks in from a scanned link now, or keeps it for later when the network is down.
    public func checkIn(scannedLink: String) async -> CheckInOutcome {
        guard let code = Rollcall.code(inScannedLink: scannedLink) else {
            return .refused(
                RollcallError(
                    .invalidCode, message: "This is not a Rollcall check-in code: scan the code on the screen."))
        }
        let entry = PendingCheckIn(id: UUID(), code: code, scannedAt: now())
        return await send(entry)
    }

    /// Checks in with a scan the server already recorded, or keeps it for later when the network is down.
    public func checkIn(scan: Scan) async -> CheckInOutcome {
        let entry = PendingCheckIn(
            id: UUID(), code: "", scannedAt: now(), ticket: scan.ticket, ticketExpiresAt: scan.expiresAt)
        return await send(entry)
    }

    /// Sends every waiting check-in whose ticket may still be valid; answers what became of each one sent.
    ///
    /// Call it when the network returns (on Apple platforms, when `NWPathMonitor` reports a path); entries another
    /// flush is already sending are left to it.
    @discardableResult
    public func flush() async -> [(entry: PendingCheckIn, outcome: CheckInOutcome)] {
        var results: [(entry: PendingCheckIn, outcome: CheckInOutcome)] = []
        for entry in pending where !sending.contains(entry.id) {
            let outcome = await send(entry)
            results.append((entry, outcome))
            if case .queued = outcome { break }  // still offline: the rest would fail the same way
        }
        return results
    }

    /// Flushes every `interval` until cancelled, for apps that cannot observe the network.
    public func run(every interval: Duration) async {
        while !Task.isCancelled {
            if !pending.isEmpty { await flush() }
            try? await Task.sleep(for: interval)
        }
    }

    private func send(_ start: PendingCheckIn) async -> CheckInOutcome {
        var entry = start
        sending.insert(entry.id)
        defer { sending.remove(entry.id) }
        if let expired = expiry(of: entry) {
            forget(entry)
            return .refused(expired)
        }
        do {
            if entry.ticket == nil {
                let scan = try await rollcall.scan(code: entry.code)
                entry.ticket = scan.ticket
                entry.ticketExpiresAt = scan.expiresAt
                keep(entry)
            }
            let result = try await rollcall.checkIn(ticket: entry.ticket!, proof: proof)
            forget(entry)
            return .checkedIn(result)
        } catch let error as RollcallError where error.isNetworkFailure {
            keep(entry)
            return .queued(entry)
        } catch let error as RollcallError {
            forget(entry)
            return .refused(error)
        } catch {
            // The app's own step (passkey prompt, location) failed or was cancelled: the student decides what next.
            forget(entry)
            return .refused(
                RollcallError(.checkInInterrupted, message: "The check-in could not finish: \(error)"))
        }
    }

    /// The refusal an entry gets without being sent, once no valid ticket can exist for it any more.
    private func expiry(of entry: PendingCheckIn) -> RollcallError? {
        let deadline = entry.ticketExpiresAt ?? entry.scannedAt.addingTimeInterval(ticketLifetime)
        guard now() >= deadline else { return nil }
        return RollcallError(
            .codeExpired, message: "This scan waited too long for the network: scan the code on the screen again.")
    }

    private func keep(_ entry: PendingCheckIn) {
        if let index = pending.firstIndex(where: { $0.id == entry.id }) {
            pending[index] = entry
        } else {
            pending.append(entry)
        }
        save()
    }

    private func forget(_ entry: PendingCheckIn) {
        pending.removeAll { $0.id == entry.id }
        save()
    }

    private func save() {
        guard let storage else { return }
        do {
            try LiveJSON.encoder.encode(pending).write(to: storage, options: .atomic)
            storageProblem = nil
        } catch {
            storageProblem = "The check-ins waiting on this device could not be kept: \(error.localizedDescription)"
            logger.error("\(storageProblem ?? "")")
        }
    }
}
