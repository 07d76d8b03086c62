import Foundation
import NIOConcurrencyHelpers

/// The origins allowed to frame the pages a launch leads to (`frame-ancestors`): `'none'` until a learning platform
/// is registered, then each platform's, so that a launch inside a course of Canvas or Moodle shows, and nobody else
/// can frame a page to trick a click.
package final class FrameAncestors: Sendable {
    package init() {}

    private let sources = NIOLockedValueBox("'none'")

    package var value: String { sources.withLockedValue { $0 } }

    /// Allows the origins of these URLs, and nobody else.
    package func allow(_ urls: [String]) {
        let origins = Set(
            urls.compactMap { text -> String? in
                guard let url = URL(string: text), let scheme = url.scheme, let host = url.host else { return nil }
                return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
            })
        sources.withLockedValue { $0 = origins.isEmpty ? "'none'" : origins.sorted().joined(separator: " ") }
    }
}
