import NIOConcurrencyHelpers
import NIOCore
import RollcallParts

extension Configuration {
    /// Gives this process `eventLoops` (else `defaultEventLoops`) event loops, the threads every connection's reads and writes run on. A
    /// command that serves calls it first, before anything opens a connection or a database: NIO fixes the count
    /// when its loops are first used, and stops the process if it is set again. Later calls change nothing.
    public func settleEventLoops() {
        let first = EventLoopCount.settled.withLockedValue { settled in
            defer { settled = true }
            return !settled
        }
        if first { NIOSingletons.groupLoopCountSuggestion = eventLoops ?? defaultEventLoops }
    }
}

/// Whether this process's event loop count is set.
private enum EventLoopCount {
    static let settled = NIOLockedValueBox(false)
}
