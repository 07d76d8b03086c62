import ServiceLifecycle

/// Work done every `interval` once the schema is ready, until the server shuts down. A failed round (the database
/// away for a moment) is not fatal: the next round tries again.
struct Periodically: Sendable {
    let interval: Duration
    let ready: AsyncStream<Void>
    let work: @Sendable () async throws -> Void

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            for await _ in ready { break }
            while !Task.isCancelled {
                try? await work()
                try await Task.sleep(for: interval)
            }
        }
    }
}
