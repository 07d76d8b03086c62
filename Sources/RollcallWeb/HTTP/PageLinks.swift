import Foundation
import RollcallCore
import RollcallWords

/// A long list on a page, cut into pages: the items of the one asked for, and the links to the pages beside it.
package struct PageLinks: Sendable {
    package var text: String
    package var previous: String?
    package var next: String?

    /// The items of page `requested` (1 on, past the last is the last) of `size` each, and the links, `nil` when
    /// everything fits on one page. `path` and `query` (a search, kept across pages) and `anchor` make the links;
    /// `reader` reads the links' words.
    package static func page<Item>(
        _ items: [Item], requested: Int, size: Int, path: String, query: String?, anchor: String, in reader: Reader
    ) -> (items: [Item], links: PageLinks?) {
        let count = max(1, (items.count + size - 1) / size)
        let current = min(max(1, requested), count)
        let shown = Array(items.dropFirst((current - 1) * size).prefix(size))
        guard count > 1 else { return (shown, nil) }
        let link = { (page: Int) in
            "\(path)?page=\(page)"
                + (query.map { "&q=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? "")
                + "#\(anchor)"
        }
        return (
            shown,
            PageLinks(
                text: reader.say("Page \(current) of \(count)"), previous: current > 1 ? link(current - 1) : nil,
                next: current < count ? link(current + 1) : nil)
        )
    }
}
