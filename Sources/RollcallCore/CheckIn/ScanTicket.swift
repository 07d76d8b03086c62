import Crypto
import Foundation

/// A scan of the projected code, pinned for `lifetime` so that signing in or a slow phone cannot make a fresh scan
/// expire. The session signs it, so checking it needs no stored row and recording a scan needs no write.
///
/// Layout, 48 bytes written as 64 URL-safe base64 characters:
///
///     ref (8) ‖ step (8) ‖ scanned at, whole milliseconds (8) ‖ student id or 0 (8)
///       ‖ HMAC-SHA256(secret, "ticket" ‖ the 32 bytes before)[0..<16]
///
/// The label keeps a ticket's MAC input apart from a code's (8 bytes) and a typed code's ("typed" ‖ 4 bytes). The
/// 128-bit tag makes a forgery a 2⁻¹²⁸ chance; the ref is readable without the secret so the server can find the
/// session. A ticket carries its student when the scan came signed in; one scanned signed out belongs to the first
/// student who checks in with it, which the server records with that check-in.
public struct ScanTicket: Equatable, Sendable {
    public var sessionRef: Int64
    /// The code step that was scanned; the ticket carries its freshness.
    public var step: Int64
    /// When the server saw the scan, in milliseconds since 1970.
    public var milliseconds: Int64
    /// The student who scanned while signed in; nobody else may use the ticket.
    public var studentID: Int64?

    /// Seconds a scan stays good for checking in.
    public static let lifetime: TimeInterval = 120
    /// Characters in a ticket.
    public static let length = 64

    static let fieldLength = 8
    static let macLength = 16
    static let bodyLength = 4 * fieldLength
    static let label = Array("ticket".utf8)

    /// `scannedAt` is kept to whole milliseconds, as the ticket carries it.
    public init(sessionRef: Int64, step: Int64, scannedAt: Date, studentID: Int64?) {
        let milliseconds = (scannedAt.timeIntervalSince1970 * 1000).rounded(.down)
        self.init(
            sessionRef: sessionRef, step: step,
            milliseconds: milliseconds.isNaN ? 0 : Int64(min(max(milliseconds, -9e18), 9e18)), studentID: studentID
        )
    }

    public init(sessionRef: Int64, step: Int64, milliseconds: Int64, studentID: Int64?) {
        self.sessionRef = sessionRef
        self.step = step
        self.milliseconds = milliseconds
        self.studentID = studentID
    }

    /// When the server saw the scan.
    public var scannedAt: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// The end of the ticket's life.
    public var expiresAt: Date { scannedAt.addingTimeInterval(Self.lifetime) }

    /// Whether the ticket still vouches for a fresh scan at `date`.
    public func isFresh(at date: Date) -> Bool { date < expiresAt }

    /// The ticket as the student's browser carries it, signed with the session's secret.
    public func signed(secret: [UInt8]) -> String {
        let body = Self.bytes(sessionRef) + Self.bytes(step) + Self.bytes(milliseconds) + Self.bytes(studentID ?? 0)
        return Self.base64URL(body + Self.mac(body, secret: secret))
    }

    /// The session a well-formed ticket names, read without the secret; `nil` for anything that is not a ticket.
    public static func sessionRef(of token: String) -> Int64? {
        guard let bytes = bytes(of: token) else { return nil }
        let ref = number(bytes, at: 0)
        return ref > 0 ? ref : nil
    }

    /// The ticket `token` holds if `secret` signed it (compared in constant time), else `nil`. Freshness is the
    /// caller's to judge with `isFresh(at:)`, so that an expired ticket can be told apart from a forged one.
    public static func verify(_ token: String, secret: [UInt8]) -> ScanTicket? {
        guard let bytes = bytes(of: token) else { return nil }
        let body = Array(bytes[0..<bodyLength])
        guard constantTimeEqual(mac(body, secret: secret), Array(bytes[bodyLength...])) else { return nil }
        let student = number(bytes, at: 3)
        return ScanTicket(
            sessionRef: number(bytes, at: 0), step: number(bytes, at: 1), milliseconds: number(bytes, at: 2),
            studentID: student == 0 ? nil : student
        )
    }

    // MARK: Bytes

    private static func mac(_ body: [UInt8], secret: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: label + body, using: SymmetricKey(data: secret)).prefix(macLength))
    }

    private static func bytes(_ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
    }

    private static func number(_ bytes: [UInt8], at field: Int) -> Int64 {
        let start = field * fieldLength
        return Int64(bitPattern: bytes[start..<(start + fieldLength)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded URL-safe base64; 48 bytes make exactly 64 characters.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(length)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let group = UInt32(bytes[start]) << 16 | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((group >> UInt32(shift)) & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let values: [Int8] = {
        var values = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { values[Int(character)] = Int8(index) }
        return values
    }()

    /// The 48 bytes of a ticket, or `nil` unless it is exactly 64 characters of the URL-safe alphabet.
    private static func bytes(of token: String) -> [UInt8]? {
        let characters = Array(token.utf8)
        guard characters.count == length else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bodyLength + macLength)
        for start in stride(from: 0, to: characters.count, by: 4) {
            var group: UInt32 = 0
            for character in characters[start..<(start + 4)] {
                let value = values[Int(character)]
                guard value >= 0 else { return nil }
                group = group << 6 | UInt32(value)
            }
            output += [UInt8(group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group)]
        }
        return output
    }
}
