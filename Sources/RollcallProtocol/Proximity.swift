import Foundation

/// The phones' own evidence of who was near whom (seed 001's APRICOT): each phone broadcasts a pseudo-ID that changes
/// every window, listens for the pseudo-IDs of phones nearby, and keeps what it heard until its owner uploads it.
///
/// A pseudo-ID is 16 random bytes, valid in one five-minute window. Nobody but Rollcall can tell whose it is or link
/// two of them: Rollcall issues them at random and keeps only a keyed hash beside the person.
public enum Proximity {
    /// Seconds each pseudo-ID is broadcast before the next one replaces it.
    public static let windowSeconds = 300
    /// Bytes in a pseudo-ID; it travels as 32 lowercase hexadecimal digits.
    public static let idBytes = 16
    /// Days of pseudo-IDs one request may ask for, and how many when it does not say.
    public static let issueDays = 1...7
    public static let defaultIssueDays = 3
    /// Encounters one upload may carry; a phone with more (a month of full lecture halls) sends them in parts.
    public static let uploadLimit = 5_000
    /// Pseudo-IDs one check-in may say it heard.
    public static let heardLimit = 500
    /// How far a phone's clock may be from Rollcall's when it says when it heard a pseudo-ID.
    public static let clockSkew: TimeInterval = 300
    /// How far back a check-in's heard pseudo-IDs may reach: what the phone heard in the room just now.
    public static let heardRecently: TimeInterval = 900
    /// The weakest and strongest signal an upload may report, in dBm.
    public static let signalRange = -127...20

    /// The start of the window `moment` falls in.
    public static func windowStart(at moment: Date) -> Date {
        let seconds = moment.timeIntervalSince1970
        let step = Double(windowSeconds)
        return Date(timeIntervalSince1970: (seconds / step).rounded(.down) * step)
    }

    /// Every window start from the one `from` falls in up to the one `through` falls in.
    public static func windows(from: Date, through: Date) -> [Date] {
        var starts: [Date] = []
        var start = windowStart(at: from)
        while start <= through {
            starts.append(start)
            start = start.addingTimeInterval(Double(windowSeconds))
        }
        return starts
    }

    /// `text` as a pseudo-ID (32 hexadecimal digits, either case), lowercase; `nil` when it is not one.
    public static func pseudoID(_ text: String) -> String? {
        guard text.utf8.count == idBytes * 2, text.utf8.allSatisfy({ $0.isHexDigit }) else { return nil }
        return text.lowercased()
    }

    /// What a phone says it heard: one pseudo-ID, when first and last, and its strongest signal.
    public struct Encounter: Codable, Equatable, Hashable, Sendable {
        public var heard: String
        public var firstSeen: Date
        public var lastSeen: Date
        /// The strongest signal received, in dBm (nearer is stronger).
        public var signal: Int

        public init(heard: String, firstSeen: Date, lastSeen: Date, signal: Int) {
            self.heard = heard
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
            self.signal = signal
        }

        /// One encounter covering both: the earlier first sighting, the later last one and the stronger signal.
        public func merged(with other: Encounter) -> Encounter {
            Encounter(
                heard: heard, firstSeen: min(firstSeen, other.firstSeen), lastSeen: max(lastSeen, other.lastSeen),
                signal: max(signal, other.signal))
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
