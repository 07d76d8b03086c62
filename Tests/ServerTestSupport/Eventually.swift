import Testing

/// Waits until `condition` holds, checking often, in the caller's isolation; fails the test after a generous deadline.
public func eventually(
    _ what: String, within deadline: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let end = clock.now + deadline
    while clock.now < end {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("waited \(deadline) for \(what)", sourceLocation: sourceLocation)
    throw Timeout(what: what)
}

/// What `eventually` throws once its deadline has passed.
public struct Timeout: Error {
    public var what: String
}
