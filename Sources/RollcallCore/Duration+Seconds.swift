extension Duration {
    /// The duration in seconds, fractions included: for the figures a report prints and the APIs that take a `Double`.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
