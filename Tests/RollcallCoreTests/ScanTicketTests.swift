import Foundation
import Testing

@testable import RollcallCore

@Suite("Scan ticket", .timeLimit(.minutes(5)))
struct ScanTicketTests {
    static let secret = (0..<32).map(UInt8.init)
    static let scanned = Date(timeIntervalSince1970: 1_800_000_000.123)
    let ticket = ScanTicket(sessionRef: 4242, step: 17, scannedAt: scanned, studentID: 99)

    /// The ticket's bytes changed and re-encoded, to tamper below the text.
    func tampered(_ token: String, byte: Int) -> String {
        var data = Data(base64Encoded: base64(token))!
        data[byte] ^= 0x01
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    func base64(_ token: String) -> String {
        token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    }

    @Test func a_signed_ticket_reads_back_as_it_was_made() {
        let token = ticket.signed(secret: Self.secret)
        #expect(token.count == ScanTicket.length)
        #expect(token.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0.isAlphanumeric })
        #expect(ScanTicket.sessionRef(of: token) == 4242)
        #expect(ScanTicket.verify(token, secret: Self.secret) == ticket)
        let anonymous = ScanTicket(sessionRef: 1, step: -3, scannedAt: Self.scanned, studentID: nil)
        #expect(ScanTicket.verify(anonymous.signed(secret: Self.secret), secret: Self.secret) == anonymous)
    }

    @Test func the_scan_time_is_kept_to_the_millisecond() {
        #expect(ticket.milliseconds == 1_800_000_000_123)
        #expect(
            ScanTicket(sessionRef: 1, step: 0, scannedAt: Self.scanned.addingTimeInterval(0.0009), studentID: nil)
                .milliseconds == 1_800_000_000_123, "rounded down")
        #expect(ticket.expiresAt == ticket.scannedAt.addingTimeInterval(120))
    }

    @Test func tickets_match_vectors_computed_independently() {
        // Python's hmac and base64: HMAC-SHA256(secret 00 01 … 1f, "ticket" ‖ four big-endian 8-byte fields)[0..<16].
        #expect(
            ticket.signed(secret: Self.secret) == "AAAAAAAAEJIAAAAAAAAAEQAAAaMYXFB7AAAAAAAAAGOs5PdTCPo5whOIQGV5rvVY")
        let anonymous = ScanTicket(sessionRef: 1, step: -3, scannedAt: Self.scanned, studentID: nil)
        #expect(
            anonymous.signed(secret: Self.secret) == "AAAAAAAAAAH__________QAAAaMYXFB7AAAAAAAAAAAoPldySeTJjDW-9GA8bCd5")
    }

    @Test func every_changed_byte_is_refused() {
        let token = ticket.signed(secret: Self.secret)
        for byte in 0..<48 {
            #expect(ScanTicket.verify(tampered(token, byte: byte), secret: Self.secret) == nil, "byte \(byte)")
        }
    }

    @Test func another_sessions_secret_does_not_verify_it() {
        var other = Self.secret
        other[0] ^= 0xFF
        #expect(ScanTicket.verify(ticket.signed(secret: Self.secret), secret: other) == nil)
    }

    @Test func text_that_is_not_a_ticket_is_refused() {
        let token = ticket.signed(secret: Self.secret)
        for bad in [
            "", "made-up", String(token.dropLast()), token + "A", String(token.dropLast()) + "=",
            String(token.dropLast()) + "é", String(repeating: "A", count: 64),
        ] {
            #expect(ScanTicket.verify(bad, secret: Self.secret) == nil, "\(bad)")
        }
        #expect(ScanTicket.sessionRef(of: "made-up") == nil)
        #expect(ScanTicket.sessionRef(of: String(repeating: "A", count: 64)) == nil, "session 0 does not exist")
    }

    @Test func a_ticket_is_fresh_for_exactly_its_lifetime() {
        #expect(ticket.isFresh(at: ticket.scannedAt))
        #expect(ticket.isFresh(at: ticket.scannedAt.addingTimeInterval(119.999)))
        #expect(!ticket.isFresh(at: ticket.scannedAt.addingTimeInterval(120)))
        #expect(!ticket.isFresh(at: ticket.scannedAt.addingTimeInterval(3600)))
    }

    @Test func a_rotating_code_is_not_a_ticket() {
        let code = RotatingCode(secret: Self.secret, sessionRef: 4242, openedAt: Self.scanned).code(at: Self.scanned)
        #expect(ScanTicket.sessionRef(of: code) == nil)
        #expect(ScanTicket.verify(code, secret: Self.secret) == nil)
    }
}

extension UInt8 {
    fileprivate var isAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
