import NIOConcurrencyHelpers
import QRCode

/// The projector's QR images, drawn once per link. Every check-in pushes a new frame to its room's projectors, while
/// the link changes only as the code turns: a room of 200 checking in within one code drew the same picture 200 times.
final class QRPictures: Sendable {
    private struct State {
        var current: [String: String] = [:]
        var previous: [String: String] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// Links kept at once: when the newer half is full, the older is dropped, so a code in use stays drawn while
    /// codes long turned leave.
    let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The picture of `link` as the projector shows it.
    func picture(of link: String) throws -> String {
        if let drawn = state.withLockedValue({ $0.current[link] ?? $0.previous[link] }) { return drawn }
        let drawn = try QRCode(encoding: link, errorCorrection: .medium).svg(moduleSize: 10, quietZone: 4)
        state.withLockedValue { state in
            if state.current.count >= capacity / 2 {
                state.previous = state.current
                state.current = [:]
            }
            state.current[link] = drawn
        }
        return drawn
    }

    /// How many links have a picture kept.
    var kept: Int { state.withLockedValue { Set($0.current.keys).union($0.previous.keys).count } }
}
