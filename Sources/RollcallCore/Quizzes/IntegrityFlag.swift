import Foundation

/// What a student's browser (or the server) noticed during an attempt: evidence for a person to judge, never a
/// penalty by itself.
public enum IntegrityFlagKind: String, Codable, CaseIterable, Sendable {
    /// The page was hidden or lost focus (another app, another tab).
    case leftPage = "left_page"
    /// The student came back to the page; `secondsAway` says after how long.
    case returned
    /// The browser lost its network.
    case offline
    /// The network came back.
    case online
    /// The quiz page was loaded again during the attempt (reload, reopened tab).
    case reloaded
    /// The attempt was opened in a second tab or on another device.
    case secondDevice = "second_device"
    /// Text was pasted into a short answer; `characters` says how much.
    case pasted
    /// The window became narrower than the quiz needs (split screen); `width` and `height` say how small.
    case resized

    /// The words the teacher's dashboard shows.
    public var label: String {
        switch self {
        case .leftPage: "left the page"
        case .returned: "came back"
        case .offline: "went offline"
        case .online: "back online"
        case .reloaded: "reloaded the page"
        case .secondDevice: "opened on a second device or tab"
        case .pasted: "pasted text"
        case .resized: "made the window small"
        }
    }
}

/// One flag as reported: its kind, when it happened by the browser's clock, and its details.
public struct IntegrityFlagReport: Codable, Sendable, Equatable {
    public var kind: IntegrityFlagKind
    public var occurredAt: Date
    /// A browser-made id, so that a flag queued offline and sent twice is stored once.
    public var clientId: String?
    public var secondsAway: Double?
    public var characters: Int?
    public var width: Int?
    public var height: Int?
    public var questionId: String?
    /// Reports of the same kind folded into this one once an attempt's flags flood (`FlagFlood`).
    public var repeats: Int?

    public init(
        kind: IntegrityFlagKind, occurredAt: Date, clientId: String? = nil, secondsAway: Double? = nil,
        characters: Int? = nil,
        width: Int? = nil, height: Int? = nil, questionId: String? = nil
    ) {
        self.kind = kind
        self.occurredAt = occurredAt
        self.clientId = clientId
        self.secondsAway = secondsAway
        self.characters = characters
        self.width = width
        self.height = height
        self.questionId = questionId
    }

    /// A window narrower than this is reported as `resized` (a phone is 320 px and more; split screen is less).
    public static let narrowWidth = 300

    /// The report checked: its time within the attempt (a phone's clock may be off by a little; a time outside
    /// the attempt is moved to its edge rather than refused, as the flag itself is still worth keeping), its
    /// numbers sensible.
    public func validated(attemptStartedAt: Date, now: Date) throws(RuleViolation) -> IntegrityFlagReport {
        var report = self
        report.occurredAt = min(max(occurredAt, attemptStartedAt.addingTimeInterval(-60)), now)
        if let clientId {
            guard (1...64).contains(clientId.count), clientId.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw RuleViolation(field: "clientId", message: "“clientId” is 1 to 64 visible ASCII characters.")
            }
        }
        if let secondsAway {
            guard secondsAway.isFinite, (0...86_400).contains(secondsAway) else {
                throw RuleViolation(field: "secondsAway", message: "“secondsAway” is from 0 to 86,400 seconds.")
            }
        }
        for (value, field) in [(characters, "characters"), (width, "width"), (height, "height")] {
            if let value, !Self.numbers.contains(value) {
                throw RuleViolation(field: field, message: "“\(field)” must be a whole number from 0 to 100,000.")
            }
        }
        report.repeats = nil
        if let questionId, !(1...40).contains(questionId.count) {
            throw RuleViolation(field: "questionId", message: "“questionId” names one of the quiz's questions.")
        }
        return report
    }

    /// The range of a flag's numbers: characters pasted, a window's width and height.
    public static let numbers = 0...100_000

    /// The details worth showing beside the flag, as one short phrase, with how often it came when folded.
    public var detail: String {
        let times = (repeats ?? 0) > 0 ? "\((repeats ?? 0) + 1) times" : ""
        return [ownDetail, times].filter { !$0.isEmpty }.joined(separator: ", ")
    }

    private var ownDetail: String {
        switch kind {
        case .returned: secondsAway.map { "after \(Self.duration($0))" } ?? ""
        case .online: secondsAway.map { "after \(Self.duration($0)) offline" } ?? ""
        case .pasted: characters.map { "\($0) characters" + (questionId.map { " into \($0)" } ?? "") } ?? ""
        case .resized: width.map { w in height.map { "\(w)×\($0)" } ?? "\(w) wide" } ?? ""
        default: ""
        }
    }

    /// Seconds as a person reads them: `45 s`, `3 min 5 s`.
    public static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min" + (whole % 60 == 0 ? "" : " \(whole % 60) s")
    }
}

/// How an attempt's integrity flags are kept from flooding the teacher's dashboard: past a number per attempt, or
/// per minute, a report is folded into the attempt's latest flag of its kind, which counts it.
public enum FlagFlood {
    /// Flags kept one by one per attempt.
    public static let perAttempt = 100
    /// Flags kept one by one per attempt in any minute.
    public static let perMinute = 20

    public enum Decision: Equatable, Sendable {
        /// A flag of its own.
        case keep
        /// A repeat, counted on the latest flag of its kind.
        case fold
    }

    /// - Parameters:
    ///   - kept: the attempt's flags so far.
    ///   - lastMinute: those received in the last minute.
    ///   - kindKept: whether a flag of the report's kind is among them, to fold into.
    public static func decide(kept: Int, lastMinute: Int, kindKept: Bool) -> Decision {
        guard kindKept, kept >= perAttempt || lastMinute >= perMinute else { return .keep }
        return .fold
    }
}
