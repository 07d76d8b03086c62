import Foundation
import Observation
import RollcallClient

/// The student's check-in screen: a scanned code in, "you're in" (or why not, and what to do) out.
///
/// Without network the scan is queued (`CheckInQueue`) and the screen says so; `networkReturned()` sends it.
@MainActor @Observable
public final class CheckInModel {
    public enum State: Sendable, Equatable {
        /// The camera is waiting for a code.
        case scanning
        /// The scan is being recorded and the check-in sent (the passkey prompt may be up).
        case checkingIn
        /// No network: the scan waits, and is sent when the network returns while its ticket is valid.
        case waitingForNetwork(scannedAt: Date)
        /// Checked in; `result.new` is false when the student already was.
        case checkedIn(CheckInResult)
        /// Refused, with what the student can do next.
        case refused(Problem)
    }

    public private(set) var state = State.scanning
    public let queue: CheckInQueue
    /// Why scans waiting for the network could not be kept on this phone, shown under the answer.
    public private(set) var storageProblem: String?
    /// The last attempt, for "try again" without scanning or typing again.
    private var last: Attempt?

    private enum Attempt {
        case scanned(String)
        case direct(Rollcall.Presence)
    }

    public init(queue: CheckInQueue) {
        self.queue = queue
    }

    /// A check-in screen for a signed-in student on this phone.
    public convenience init(rollcall: Rollcall, proof: CheckInProof, storage: URL? = nil) {
        self.init(queue: CheckInQueue(rollcall: rollcall, proof: proof, storage: storage))
    }

    /// The camera read a code.
    public func scanned(_ link: String) async {
        if state == .checkingIn { return }
        last = .scanned(link)
        state = .checkingIn
        show(await queue.checkIn(scannedLink: link))
        storageProblem = await queue.storageProblem
    }

    /// The student typed the short code on the projector (sessions that allow typing; needs the network).
    public func typed(_ code: String, sessionID: Int64) async {
        await checkIn(.typed(sessionID: sessionID, code: code))
    }

    /// The student checks in at a check-in spot: the location alone (needs the network).
    public func checkInAtSpot(sessionID: Int64) async {
        await checkIn(.spot(sessionID: sessionID))
    }

    private func checkIn(_ presence: Rollcall.Presence) async {
        if state == .checkingIn { return }
        last = .direct(presence)
        state = .checkingIn
        do {
            state = .checkedIn(try await queue.rollcall.checkIn(presence, proof: queue.proof))
        } catch {
            state = .refused(Problem(RollcallError.wrapping(error)))
        }
    }

    /// Whether the screen offers "try again" without a new scan.
    public var canTryAgain: Bool {
        if case .refused(let problem) = state, problem.next == .tryAgain, last != nil { return true }
        return false
    }

    /// Tries the last scan (or typed code) again, once its cause is fixed (location allowed, passkey retried).
    public func tryAgain() async {
        guard canTryAgain, let last else { return }
        switch last {
        case .scanned(let link): await scanned(link)
        case .direct(let presence): await checkIn(presence)
        }
    }

    /// Sends what waits for the network; call it when the network comes back.
    public func networkReturned() async {
        guard case .waitingForNetwork = state else {
            await queue.flush()
            return
        }
        state = .checkingIn
        let outcomes = await queue.flush()
        storageProblem = await queue.storageProblem
        if let last = outcomes.last?.outcome {
            show(last)
        } else if let waiting = await queue.pending.last {
            state = .waitingForNetwork(scannedAt: waiting.scannedAt)
        } else {
            state = .scanning
        }
    }

    /// Back to the camera.
    public func scanAgain() {
        if state != .checkingIn { state = .scanning }
    }

    private func show(_ outcome: CheckInOutcome) {
        switch outcome {
        case .checkedIn(let result): state = .checkedIn(result)
        case .queued(let entry): state = .waitingForNetwork(scannedAt: entry.scannedAt)
        case .refused(let error): state = .refused(Problem(error))
        }
    }
}
