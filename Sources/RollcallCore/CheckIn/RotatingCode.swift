import Crypto
import Foundation

/// The code a session projects: it changes every `period` seconds and only the server, holding the secret, can make it.
///
/// A code is `ref ‖ step ‖ MAC`: the session's id and the step as 4-byte big-endian numbers and the first 12 bytes
/// (96 bits) of HMAC-SHA256 over both, 20 bytes written as 32 Crockford base32 characters.
public struct RotatingCode: Sendable {
    public static let allowedPeriods = 2...60
    public static let allowedGrace = 0...5
    static let macLength = 12
    static let byteLength = 4 + 4 + macLength
    public static let length = (byteLength * 8 + 4) / 5

    private let key: SymmetricKey
    public let sessionRef: Int64
    public let openedAt: Date
    public let period: Int
    public let grace: Int

    /// - Parameters:
    ///   - secret: the session's random secret, at least 16 bytes.
    ///   - sessionRef: the session's id; it must fit in 32 bits.
    ///   - openedAt: step 0 starts here, on the server's clock.
    public init(secret: [UInt8], sessionRef: Int64, openedAt: Date, period: Int = 5, grace: Int = 1) {
        precondition(secret.count >= 16, "a session secret has at least 128 bits")
        precondition(sessionRef >= 0 && sessionRef <= Int64(UInt32.max), "session ids fit in 32 bits")
        precondition(Self.allowedPeriods.contains(period) && Self.allowedGrace.contains(grace))
        self.key = SymmetricKey(data: secret)
        self.sessionRef = sessionRef
        self.openedAt = openedAt
        self.period = period
        self.grace = grace
    }

    /// A fresh 32-byte secret for a new session.
    public static func makeSecret<G: RandomNumberGenerator>(using generator: inout G) -> [UInt8] {
        (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The step at `date`; before opening it is negative.
    public func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince(openedAt) / Double(period)).rounded(.down))
    }

    /// When `step` starts.
    public func start(of step: Int64) -> Date {
        openedAt.addingTimeInterval(Double(step) * Double(period))
    }

    public func code(at date: Date) -> String { code(forStep: step(at: date)) }

    public func code(forStep step: Int64) -> String {
        let body = Self.bigEndian(UInt32(sessionRef)) + Self.bigEndian(UInt32(truncatingIfNeeded: step))
        return Base32.encode(body + mac(body))
    }

    /// The six-digit code for typing, for a student whose camera does not work.
    public func typedCode(at date: Date) -> String { typedCode(forStep: step(at: date)) }

    public func typedCode(forStep step: Int64) -> String {
        let digest = Array(
            HMAC<SHA256>.authenticationCode(
                for: Array("typed".utf8) + Self.bigEndian(UInt32(sessionRef)) + Self.bigEndian(UInt32(truncatingIfNeeded: step)),
                using: key
            )
        )
        let number = digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let text = String(number)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// How a presented code stands at `date`.
    public enum CodeCheck: Equatable, Sendable {
        /// Made by this session for a step inside the window.
        case fresh(step: Int64)
        /// Authentic, but older than the grace window.
        case expired(step: Int64)
        /// Authentic, but for a step that has not begun: a clock or a forgery problem, never accepted.
        case fromFuture(step: Int64)
        /// Not a code this session made.
        case invalid
    }

    public func validate(_ code: String, at date: Date) -> CodeCheck {
        guard code.utf8.count == Self.length, let bytes = Base32.decode(code), bytes.count == Self.byteLength else {
            return .invalid
        }
        let body = Array(bytes[0..<8])
        guard Self.number(bytes[0..<4]) == UInt32(sessionRef), constantTimeEqual(mac(body), Array(bytes[8...])) else {
            return .invalid
        }
        return window(step: Int64(Self.number(bytes[4..<8])), at: date)
    }

    /// Checks a typed code against every step still in the window.
    public func validateTyped(_ typed: String, at date: Date) -> CodeCheck {
        let digits = typed.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .invalid }
        let now = step(at: date)
        var match: Int64?
        for candidate in (now - Int64(grace))...now where candidate >= 0 {
            if constantTimeEqual(Array(typedCode(forStep: candidate).utf8), Array(digits.utf8)) { match = candidate }
        }
        return match.map { .fresh(step: $0) } ?? .invalid
    }

    /// The session id a well-formed code names, read without the secret so that the server can find the session.
    public static func sessionRef(of code: String) -> Int64? {
        guard code.utf8.count == length, let bytes = Base32.decode(code), bytes.count == byteLength else { return nil }
        return Int64(number(bytes[0..<4]))
    }

    private func window(step: Int64, at date: Date) -> CodeCheck {
        let now = self.step(at: date)
        if step > now { return .fromFuture(step: step) }
        if step < now - Int64(grace) { return .expired(step: step) }
        return .fresh(step: step)
    }

    private func mac(_ body: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: body, using: key).prefix(Self.macLength))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Compares without stopping at the first difference, so timing tells an attacker nothing.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
}
