/// Uploads take turns, one at a time in a process: decoding, hashing and merging 5,000 encounters is a core's
/// work for a while, and several at once would leave none for the check-ins beside them. A phone waits its turn;
/// nothing it sends is lost.
actor UploadTurns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take<Result: Sendable>(_ work: @Sendable () async throws -> Result) async throws -> Result {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer { pass() }
        return try await work()
    }

    private func pass() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
