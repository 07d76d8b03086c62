import Foundation
import RollcallCore
import RollcallWords

/// The sentence at the top of a course's pages for a reader who lives in another zone: the page's times are the
/// course's (a Bogotá course taught from Mexico City reads "08:15" as Bogotá's), and the reader is told so with
/// both clocks, now, so that the hour between them is plain without arithmetic.
package enum ZoneNote {
    /// `nil` when the page's zone and the reader's show the same time now, or the reader's zone is not known;
    /// `language`: whom the sentence is for.
    package static func text(page: TimeText, reader: TimeZone?, at now: Date = Date(), in language: Reader) -> String? {
        guard let reader, reader.secondsFromGMT(for: now) != page.zone.secondsFromGMT(for: now) else { return nil }
        let theirs = TimeText(zone: reader, locale: page.locale)
        return language.say(
            "Times on this page are the course's, in \(page.zone.identifier): \(page.time(now)) there now is \(theirs.time(now)) your time (\(reader.identifier))."
        )
    }
}

/// One zone of a page's zone menu, and whether it is the one chosen.
package struct TimeZoneChoice: Sendable {
    package var id: String
    package var selected: Bool

    package init(id: String, selected: Bool) {
        self.id = id
        self.selected = selected
    }
}
