import Crypto
import Foundation

/// How a presented code stands at an instant, on the server's clock.
public enum CodeCheck: Equatable, Sendable {
    /// Made by this session for a step inside the acceptance window.
    case fresh(step: Int64)
    /// Made by this session, but older than the grace window: the student must scan again.
    case expired(step: Int64)
    /// Made with this session's secret for a step that has not begun. The server never shows such a code, so it
    /// means a leaked secret or a clock set back, and it is never accepted.
    case fromFuture(step: Int64)
    /// Not a code this session made: malformed, tampered with, or another session's.
    case invalid
}

/// The code a session projects: it changes every `period` seconds and only the server, holding the secret, can make it.
///
/// Layout, 20 bytes written as exactly 32 Crockford base32 characters (160 bits, so no padding bits and no second
/// spelling of the same bytes apart from the forgiving look-alikes):
///
///     ref (4 bytes, unsigned big-endian) ‖ step (4 bytes, signed big-endian) ‖ HMAC-SHA256(secret, ref ‖ step)[0..<12]
///
/// Four bytes of ref hold session ids up to 4,294,967,295; larger ids trap at `init`. Four signed bytes of step
/// last 136 years even at the shortest period, and allow the negative steps before opening. The 96-bit tag makes a
/// blind forgery a 2⁻⁹⁶ chance. The ref is readable without the secret so the server can find the session.
public struct RotatingCode: Sendable {
    /// The same type, so callers may write `RotatingCode.CodeCheck` as well as `CodeCheck`.
    public typealias CodeCheck = RollcallCore.CodeCheck

    /// Seconds a code is shown.
    public static let allowedPeriods = 2...60
    /// Steps back a code is still accepted.
    public static let allowedGrace = 0...5
    /// Session ids a code can carry: positive and within four bytes.
    public static let allowedSessionRefs: ClosedRange<Int64> = 1...Int64(UInt32.max)
    /// Secrets shorter than this are refused: 128 bits is the least an HMAC key should carry.
    public static let minimumSecretLength = 16
    /// Bytes in a secret from `makeSecret`.
    public static let secretLength = 32
    /// Characters in a code.
    public static let length = 32
    /// Digits in a typed code.
    public static let typedLength = 6
    /// How far back a typed code is still recognised, to tell a slow typist "expired" rather than "invalid".
    public static let typedExpiryLookback: TimeInterval = 60

    static let refLength = 4
    static let stepLength = 4
    static let macLength = 12
    static let byteLength = refLength + stepLength + macLength

    /// Clamps `step(at:)` well inside `Int64` so window arithmetic can never overflow, even for absurd dates.
    static let stepLimit: Int64 = 1 << 52

    private let key: SymmetricKey
    public let sessionRef: Int64
    public let openedAt: Date
    public let period: Int
    public let grace: Int

    /// - Parameters:
    ///   - secret: the session's random secret, at least `minimumSecretLength` bytes (`makeSecret` gives 32).
    ///   - sessionRef: the session's id, in `allowedSessionRefs`.
    ///   - openedAt: step 0 starts here, on the server's clock.
    ///   - period: seconds per step, in `allowedPeriods`.
    ///   - grace: steps back a code stays valid, in `allowedGrace`.
    /// Arguments outside these ranges are programming errors (settings are validated before they are stored) and trap.
    public init(secret: [UInt8], sessionRef: Int64, openedAt: Date, period: Int = 5, grace: Int = 1) {
        precondition(secret.count >= Self.minimumSecretLength, "a session secret has at least 128 bits")
        precondition(Self.allowedSessionRefs.contains(sessionRef), "session ref \(sessionRef) does not fit a code")
        precondition(Self.allowedPeriods.contains(period), "period \(period) is outside \(Self.allowedPeriods)")
        precondition(Self.allowedGrace.contains(grace), "grace \(grace) is outside \(Self.allowedGrace)")
        self.key = SymmetricKey(data: secret)
        self.sessionRef = sessionRef
        self.openedAt = openedAt
        self.period = period
        self.grace = grace
    }

    /// A fresh 32-byte secret for a new session; pass a cryptographically secure generator outside tests.
    public static func makeSecret<G: RandomNumberGenerator>(using generator: inout G) -> [UInt8] {
        var secret: [UInt8] = []
        secret.reserveCapacity(secretLength)
        while secret.count < secretLength {
            var word: UInt64 = generator.next()
            for _ in 0..<8 where secret.count < secretLength {
                secret.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return secret
    }

    // MARK: Steps

    /// The step at `date`: step n covers [openedAt + n·period, openedAt + (n+1)·period); before opening it is negative.
    public func step(at date: Date) -> Int64 {
        let steps = (date.timeIntervalSince(openedAt) / Double(period)).rounded(.down)
        guard !steps.isNaN else { return -Self.stepLimit }
        return Int64(min(max(steps, Double(-Self.stepLimit)), Double(Self.stepLimit)))
    }

    /// When `step` begins.
    public func start(of step: Int64) -> Date {
        openedAt.addingTimeInterval(Double(step) * Double(period))
    }

    // MARK: Scanned codes

    /// The code shown at `date`.
    public func code(at date: Date) -> String { code(forStep: step(at: date)) }

    /// The code of `step`. A step beyond 32 bits (over 136 years away) is clamped to the last one that fits, so such
    /// a code names a different step and never validates for the one asked.
    public func code(forStep step: Int64) -> String {
        let body = Self.refBytes(sessionRef) + Self.stepBytes(step)
        return Base32.encode(body + mac(body))
    }

    /// Checks a scanned code: right length and alphabet, this session's ref, an authentic tag (compared in constant
    /// time), then the window `now − grace … now` in steps.
    public func validate(_ code: String, at date: Date) -> CodeCheck {
        guard let bytes = Self.bytes(of: code), Self.ref(in: bytes) == sessionRef else { return .invalid }
        let body = Array(bytes[0..<(Self.refLength + Self.stepLength)])
        guard constantTimeEqual(mac(body), Array(bytes[(Self.refLength + Self.stepLength)...])) else {
            return .invalid
        }
        let step = Int64(Int32(bitPattern: Self.number(bytes[Self.refLength..<(Self.refLength + Self.stepLength)])))
        let now = self.step(at: date)
        if step > now { return .fromFuture(step: step) }
        if step < now - Int64(grace) { return .expired(step: step) }
        return .fresh(step: step)
    }

    /// The session id a well-formed code names, read without the secret so the server can find the session to check
    /// it against. `nil` for anything that is not 32 characters of the alphabet or names no possible session.
    public static func sessionRef(of code: String) -> Int64? {
        guard let bytes = bytes(of: code) else { return nil }
        let ref = ref(in: bytes)
        return allowedSessionRefs.contains(ref) ? ref : nil
    }

    // MARK: Typed codes

    /// The six-digit code shown at `date`, for a student whose camera does not work.
    public func typedCode(at date: Date) -> String { typedCode(forStep: step(at: date)) }

    /// Six digits from HMAC-SHA256(secret, "typed" ‖ step) by RFC 4226's dynamic truncation. The message is 9 bytes
    /// against the scanned code's 8, so the two never share a MAC input.
    public func typedCode(forStep step: Int64) -> String {
        let digest = Array(HMAC<SHA256>.authenticationCode(for: Self.typedLabel + Self.stepBytes(step), using: key))
        let offset = Int(digest[digest.count - 1] & 0x0F)
        let number = digest[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        let text = String(number % 1_000_000)
        return String(repeating: "0", count: Self.typedLength - text.count) + text
    }

    /// Checks a typed code against every step of the window; the newest matching step wins. Spaces and dashes are
    /// ignored, since the screen shows "123 456". Six digits are guessable — (grace + 1) in a million per try — so
    /// the server must limit attempts. A code from up to `typedExpiryLookback` before the window reads as expired;
    /// the future is not searched, as no one can have seen those codes.
    public func validateTyped(_ typed: String, at date: Date) -> CodeCheck {
        let digits = Array(typed.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") })
        guard digits.count == Self.typedLength,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return .invalid }
        let now = step(at: date)
        let oldestFresh = now - Int64(grace)
        let lookback = Int64(Self.typedExpiryLookback) / Int64(period)
        var result = CodeCheck.invalid
        // Oldest to newest, without stopping early, so the time taken does not tell which step matched.
        for candidate in (oldestFresh - lookback)...now {
            if constantTimeEqual(Array(typedCode(forStep: candidate).utf8), digits) {
                result = candidate < oldestFresh ? .expired(step: candidate) : .fresh(step: candidate)
            }
        }
        return result
    }

    // MARK: Bytes

    private static let typedLabel = Array("typed".utf8)

    private func mac(_ body: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: body, using: key).prefix(Self.macLength))
    }

    /// The 20 bytes of a code, or `nil` unless it is exactly 32 characters of the forgiving alphabet.
    private static func bytes(of code: String) -> [UInt8]? {
        guard code.utf8.count == length, let bytes = Base32.decode(code), bytes.count == byteLength else { return nil }
        return bytes
    }

    private static func ref(in bytes: [UInt8]) -> Int64 { Int64(number(bytes[0..<refLength])) }

    private static func refBytes(_ ref: Int64) -> [UInt8] { bigEndian(UInt32(truncatingIfNeeded: ref)) }

    private static func stepBytes(_ step: Int64) -> [UInt8] { bigEndian(UInt32(bitPattern: Int32(clamping: step))) }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Compares two byte strings in time that depends only on their lengths, never on where they first differ, so a
/// timing attacker learns nothing about a secret value. Lengths are not secret here.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
