import Foundation
import RollcallProtocol

/// The rules over what the phones say they heard: which uploads are taken, and who was near whom for how long.
extension Proximity {
    /// Whether a pseudo-ID of the window starting at `windowStart` can have been heard from `firstSeen` to
    /// `lastSeen`: inside its window, give or take the clocks' difference.
    public static func fits(windowStart: Date, firstSeen: Date, lastSeen: Date) -> Bool {
        let end = windowStart.addingTimeInterval(Double(windowSeconds))
        return firstSeen >= windowStart.addingTimeInterval(-clockSkew) && lastSeen <= end.addingTimeInterval(clockSkew)
    }

    /// An upload's encounters checked against the bounds, with repeated pseudo-IDs merged into one encounter each;
    /// the first encounter out of bounds refuses the whole upload, naming it.
    public static func checkedUpload(_ encounters: [Encounter], now: Date, retentionDays: Int) throws(RuleViolation)
        -> [Encounter]
    {
        guard !encounters.isEmpty else {
            throw RuleViolation(field: "encounters", message: "Send at least one encounter, or nothing at all.")
        }
        guard encounters.count <= uploadLimit else {
            throw RuleViolation(
                field: "encounters",
                message: "An upload holds at most \(uploadLimit) encounters; send the rest in another upload.")
        }
        let oldest = Retention.cutoff(now: now, days: retentionDays)
        let latest = now.addingTimeInterval(clockSkew)
        var merged: [String: Encounter] = [:]
        var order: [String] = []
        for (index, encounter) in encounters.enumerated() {
            let heard = try checked(encounter, number: index + 1, oldest: oldest, latest: latest, days: retentionDays)
            var clean = encounter
            clean.heard = heard
            if let known = merged[heard] {
                merged[heard] = known.merged(with: clean)
            } else {
                merged[heard] = clean
                order.append(heard)
            }
        }
        return order.map { merged[$0]! }
    }

    /// One encounter of an upload against the bounds: its pseudo-ID, written as the server keeps it, or the refusal.
    private static func checked(
        _ encounter: Encounter, number: Int, oldest: Date, latest: Date, days retentionDays: Int
    )
        throws(RuleViolation) -> String
    {
        guard let heard = pseudoID(encounter.heard) else {
            throw RuleViolation(
                field: "encounters",
                message: "Encounter \(number): a pseudo-ID is 32 hexadecimal digits.")
        }
        guard encounter.firstSeen <= encounter.lastSeen else {
            throw RuleViolation(
                field: "encounters",
                message: "Encounter \(number): it was first heard after it was last heard.")
        }
        guard encounter.lastSeen <= latest else {
            throw RuleViolation(
                field: "encounters", message: "Encounter \(number): it was heard in the future; check the clock.")
        }
        guard encounter.firstSeen >= oldest else {
            throw RuleViolation(
                field: "encounters",
                message:
                    "Encounter \(number): Rollcall keeps evidence for \(retentionDays) days only; leave out what is older."
            )
        }
        // One phone's own clock measures both ends, so the clocks' difference plays no part in the length.
        guard encounter.lastSeen.timeIntervalSince(encounter.firstSeen) <= Double(windowSeconds) else {
            throw RuleViolation(
                field: "encounters",
                message:
                    "Encounter \(number): one pseudo-ID is heard for one window (\(windowSeconds / 60) minutes) at most."
            )
        }
        guard signalRange.contains(encounter.signal) else {
            throw RuleViolation(
                field: "encounters",
                message:
                    "Encounter \(number): the signal is a strength in dBm from \(signalRange.lowerBound) to \(signalRange.upperBound)."
            )
        }
        return heard
    }

    /// Whole minutes covered by `spans`, each at least one minute (a single sighting is one scan's minute), with
    /// overlapping spans counted once: the two phones of a pair each report the same minutes.
    public static func minutes(_ spans: [(from: Date, until: Date)]) -> Int {
        let widened = spans.map { span in (span.from, max(span.until, span.from.addingTimeInterval(60))) }
            .sorted { $0.0 < $1.0 }
        var total: TimeInterval = 0
        var current: (Date, Date)?
        for span in widened {
            if let open = current, span.0 <= open.1 {
                current = (open.0, max(open.1, span.1))
            } else {
                if let open = current { total += open.1.timeIntervalSince(open.0) }
                current = span
            }
        }
        if let open = current { total += open.1.timeIntervalSince(open.0) }
        return Int((total / 60).rounded(.down))
    }

    /// One resolved encounter between two people: `listener`'s phone heard `speaker`'s.
    public struct Sighting: Equatable, Sendable {
        public var listener: Int64
        public var speaker: Int64
        public var firstSeen: Date
        public var lastSeen: Date

        public init(listener: Int64, speaker: Int64, firstSeen: Date, lastSeen: Date) {
            self.listener = listener
            self.speaker = speaker
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }
    }

    /// Someone whose phone was near the person's, for how many minutes, and when first and last.
    public struct Contact: Equatable, Sendable {
        public var personID: Int64
        public var minutes: Int
        public var firstSeen: Date
        public var lastSeen: Date

        public init(personID: Int64, minutes: Int, firstSeen: Date, lastSeen: Date) {
            self.personID = personID
            self.minutes = minutes
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }
    }

    /// Everyone whose phone heard `personID`'s or was heard by it, once each, most minutes first. Sightings
    /// between two other people, and a phone hearing itself, are left out.
    public static func contacts(of personID: Int64, in sightings: [Sighting]) -> [Contact] {
        var spans: [Int64: [(from: Date, until: Date)]] = [:]
        for sighting in sightings where sighting.listener != sighting.speaker {
            let other: Int64
            if sighting.listener == personID {
                other = sighting.speaker
            } else if sighting.speaker == personID {
                other = sighting.listener
            } else {
                continue
            }
            spans[other, default: []].append((sighting.firstSeen, sighting.lastSeen))
        }
        return spans.map { other, spans in
            Contact(
                personID: other, minutes: minutes(spans), firstSeen: spans.map(\.from).min()!,
                lastSeen: spans.map(\.until).max()!)
        }.sorted { a, b in
            a.minutes != b.minutes ? a.minutes > b.minutes : a.personID < b.personID
        }
    }
}
