import NIOCore

/// The campus morning's quiz saves. Each student's are planned from the moment their attempt started, whenever that
/// was: the first a few seconds after, then one every few seconds until the arrival window ends. A save that falls
/// due waits for a free connection, and its time runs from when it fell due, so the wait is counted. A failed save is
/// counted with the others, never the end of the run. Everything here runs on the load generator's one event loop.
final class CampusSaves: @unchecked Sendable {
    typealias Save = (LoopbackConnection, _ sequence: Int, @escaping (Result<Void, any Error>) -> Void) -> Void

    private let loop: any EventLoop
    private var idle: [LoopbackConnection]
    private var due: [(at: NIODeadline, sequence: Int, save: Save)] = []
    private var planned = 0
    private var arrivalsDone = false
    private let finished: EventLoopPromise<Void>
    private let first: TimeAmount
    private let every: TimeAmount
    private let end: NIODeadline
    /// Each save's time from falling due to its answer, in seconds.
    private(set) var latencies: [Double] = []
    /// Saves that failed, by what went wrong.
    private(set) var failures: [String: Int] = [:]

    init(on loop: any EventLoop, over connections: [LoopbackConnection], first: Double, every: Double, end: NIODeadline)
    {
        self.loop = loop
        self.idle = connections
        self.first = .nanoseconds(Int64(first * 1e9))
        self.every = .nanoseconds(Int64(every * 1e9))
        self.end = end
        self.finished = loop.makePromise()
    }

    /// Plans one student's saves from now, as their attempt has just started.
    func attemptStarted(_ save: @escaping Save) {
        loop.preconditionInEventLoop()
        var at = NIODeadline.now() + first
        var sequence = 1
        while at < end {
            planned += 1
            let (when, number) = (at, sequence)
            // On the loop already (checked above): the plan runs there, with the save it was given.
            loop.assumeIsolated().scheduleTask(deadline: when) {
                self.due.append((when, number, save))
                self.pump()
            }
            at = at + every
            sequence += 1
        }
    }

    private func pump() {
        while !due.isEmpty, let connection = idle.popLast() {
            let (at, sequence, save) = due.removeFirst()
            save(connection, sequence) { result in
                self.latencies.append(Double((NIODeadline.now() - at).nanoseconds) / 1e9)
                if case .failure(let error) = result { self.failures["\(error)", default: 0] += 1 }
                self.idle.append(connection)
                self.planned -= 1
                self.pump()
                self.finishIfDone()
            }
        }
    }

    private func finishIfDone() {
        if arrivalsDone && planned == 0 { finished.succeed(()) }
    }

    /// Waits until every save planned by the arrivals, all now handled, has been answered.
    func whenAllAnswered() async throws {
        loop.execute {
            self.arrivalsDone = true
            self.finishIfDone()
        }
        try await finished.futureResult.get()
    }
}
