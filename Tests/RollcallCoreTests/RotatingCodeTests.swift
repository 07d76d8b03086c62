import Foundation
import Testing

@testable import RollcallCore

@Suite("Rotating code", .timeLimit(.minutes(5)))
struct RotatingCodeTests {
    static let opened = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = (0..<32).map(UInt8.init)
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    let rotating = RotatingCode(secret: secret, sessionRef: 4242, openedAt: opened, period: 5, grace: 1)

    func at(_ seconds: Double) -> Date { Self.opened.addingTimeInterval(seconds) }

    /// A code with its bytes changed, re-encoded, to tamper below the text.
    func reencoded(_ code: String, _ change: (inout [UInt8]) -> Void) -> String {
        var bytes = Base32.decode(code)!
        change(&bytes)
        return Base32.encode(bytes)
    }

    // MARK: Format

    @Test func codes_match_vectors_computed_independently() {
        // HMAC-SHA256 and Crockford base32 from Python's standard library, for secret 00 01 … 1f and ref 4242.
        #expect(rotating.code(forStep: 2) == "000114G000005EBBHWZK03E51C21ZZ85")
        #expect(rotating.code(forStep: -1) == "000114QZZZZZZEQGF65MVRDRYM4V23X0")
        let largest = RotatingCode(secret: Self.secret, sessionRef: Int64(UInt32.max), openedAt: Self.opened)
        #expect(largest.code(forStep: 0) == "ZZZZZZR000001ATA3GZ45SXT1HWRXW8A")
        #expect(rotating.typedCode(forStep: 2) == "449632")
        #expect(rotating.typedCode(forStep: -1) == "187404")
        #expect(rotating.typedCode(forStep: 276) == "004740", "leading zeros are kept")
    }

    @Test func a_code_is_32_characters_of_the_qr_alphanumeric_alphabet() {
        let code = rotating.code(at: at(0))
        #expect(code.count == RotatingCode.length)
        #expect(code.count == 32)
        #expect(code.allSatisfy(Self.alphabet.contains))
        let qrAlphanumeric = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
        #expect(code.allSatisfy(qrAlphanumeric.contains))
    }

    @Test func a_code_carries_ref_and_step_in_the_clear_and_a_96_bit_tag() {
        let bytes = Base32.decode(rotating.code(forStep: 0x0102_0304))!
        #expect(bytes.count == 20)
        #expect(Array(bytes[0..<4]) == [0, 0, 0x10, 0x92], "4242 in four big-endian bytes")
        #expect(Array(bytes[4..<8]) == [1, 2, 3, 4])
        let before = Base32.decode(rotating.code(forStep: -2))!
        #expect(Array(before[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFE], "negative steps are two's complement")
    }

    @Test func the_session_ref_is_read_without_the_secret() {
        #expect(RotatingCode.sessionRef(of: rotating.code(at: at(3))) == 4242)
        #expect(RotatingCode.sessionRef(of: rotating.code(at: at(3)).lowercased()) == 4242)
        for ref in [1, 2, 4242, Int64(UInt32.max) - 1, Int64(UInt32.max)] {
            let code = RotatingCode(secret: Self.secret, sessionRef: ref, openedAt: Self.opened).code(at: at(0))
            #expect(RotatingCode.sessionRef(of: code) == ref)
        }
        #expect(RotatingCode.allowedSessionRefs == 1...4_294_967_295)
        #expect(RotatingCode.sessionRef(of: String(repeating: "0", count: 32)) == nil, "ref 0 names no session")
    }

    @Test(arguments: [
        "", "A", String(repeating: "0", count: 31), String(repeating: "0", count: 33),
        String(repeating: "U", count: 32), String(repeating: "u", count: 32), String(repeating: "-", count: 32),
        String(repeating: " ", count: 32), String(repeating: "Ｏ", count: 32), String(repeating: "é", count: 16),
        String(repeating: "\0", count: 32), "000114G000005EBBHWZK03E51C21ZZ8", "000114G000005EBBHWZK03E51C21ZZ85 ",
        " 000114G000005EBBHWZK03E51C21ZZ85", "000114G000005EBBHWZK03E51C21ZZ8\n", "000114G0-00005EBBHWZK03E51C21ZZ8",
        "000114G000005EBBHWZK03E51C21ZZ8U", "🙂000114G000005EBBHWZK03E51C21Z", "!@#$%^&*()",
    ])
    func malformed_codes_are_invalid_and_name_no_session(code: String) {
        #expect(rotating.validate(code, at: at(12)) == .invalid)
        #expect(rotating.validateTyped(code, at: at(12)) == .invalid)
        #expect(RotatingCode.sessionRef(of: code) == nil)
    }

    // MARK: Steps and the window

    @Test func steps_change_exactly_at_period_boundaries() {
        #expect(rotating.step(at: at(0)) == 0)
        #expect(rotating.step(at: at(4.999)) == 0)
        #expect(rotating.step(at: at(5)) == 1)
        #expect(rotating.step(at: at(-0.001)) == -1)
        #expect(rotating.step(at: at(-5)) == -1)
        #expect(rotating.step(at: at(-5.001)) == -2)
        #expect(rotating.code(at: at(0)) == rotating.code(at: at(4.999)))
        #expect(rotating.code(at: at(4.999)) != rotating.code(at: at(5)))
        #expect(rotating.start(of: 3) == at(15))
        #expect(rotating.start(of: -1) == at(-5))
    }

    @Test func a_code_is_fresh_through_its_step_and_the_grace_step_then_expired() {
        let code = rotating.code(forStep: 2)  // shown from 10 s to 15 s
        #expect(rotating.validate(code, at: at(9.999)) == .fromFuture(step: 2), "last instant before it is shown")
        #expect(rotating.validate(code, at: at(10)) == .fresh(step: 2), "exactly at its step boundary")
        #expect(rotating.validate(code, at: at(14.999)) == .fresh(step: 2))
        #expect(rotating.validate(code, at: at(15)) == .fresh(step: 2), "first instant of grace")
        #expect(rotating.validate(code, at: at(19.999)) == .fresh(step: 2), "last instant of grace")
        #expect(rotating.validate(code, at: at(20)) == .expired(step: 2), "first instant after grace")
        #expect(rotating.validate(code, at: at(86_400)) == .expired(step: 2))
    }

    @Test func a_code_from_the_future_is_refused_however_near() {
        #expect(rotating.validate(rotating.code(forStep: 3), at: at(14.999)) == .fromFuture(step: 3))
        #expect(rotating.validate(rotating.code(forStep: 1_000_000), at: at(0)) == .fromFuture(step: 1_000_000))
    }

    @Test(arguments: RotatingCode.allowedGrace)
    func grace_counts_whole_steps_back(grace: Int) {
        let code = RotatingCode(secret: Self.secret, sessionRef: 7, openedAt: Self.opened, period: 2, grace: grace)
        let shown = code.code(forStep: 10)  // from 20 s to 22 s
        let lastFresh = Double(2 * (11 + grace)) - 0.001
        #expect(code.validate(shown, at: at(lastFresh)) == .fresh(step: 10))
        #expect(code.validate(shown, at: at(lastFresh + 0.001)) == .expired(step: 10))
    }

    @Test(arguments: [2, 5, 17, 60])
    func every_allowed_period_cuts_steps_at_its_multiples(period: Int) {
        let code = RotatingCode(secret: Self.secret, sessionRef: 7, openedAt: Self.opened, period: period, grace: 0)
        #expect(code.step(at: at(Double(period) * 3 - 0.001)) == 2)
        #expect(code.step(at: at(Double(period) * 3)) == 3)
        #expect(code.validate(code.code(forStep: 3), at: at(Double(period) * 4 - 0.001)) == .fresh(step: 3))
        #expect(code.validate(code.code(forStep: 3), at: at(Double(period) * 4)) == .expired(step: 3))
    }

    @Test func the_allowed_ranges_are_published() {
        #expect(RotatingCode.allowedPeriods == 2...60)
        #expect(RotatingCode.allowedGrace == 0...5)
        #expect(rotating.period == 5 && rotating.grace == 1)
        let defaults = RotatingCode(secret: Self.secret, sessionRef: 1, openedAt: Self.opened)
        #expect(defaults.period == 5 && defaults.grace == 1)
    }

    @Test func codes_before_opening_work_on_negative_steps() {
        let code = rotating.code(at: at(-12))
        #expect(rotating.validate(code, at: at(-12)) == .fresh(step: -3))
        #expect(rotating.validate(code, at: at(0)) == .expired(step: -3))
    }

    @Test func absurd_dates_and_steps_do_not_crash() {
        for date in [
            Date.distantPast, Date.distantFuture, Date(timeIntervalSinceReferenceDate: .infinity),
            Date(timeIntervalSinceReferenceDate: -.infinity), Date(timeIntervalSinceReferenceDate: .nan),
        ] {
            _ = rotating.step(at: date)
            #expect(rotating.validate(rotating.code(at: at(0)), at: date) != .fresh(step: 0))
            _ = rotating.validateTyped(rotating.typedCode(at: date), at: date)
        }
        #expect(rotating.validate(rotating.code(at: at(0)), at: .distantFuture) == .expired(step: 0))
        #expect(rotating.code(forStep: .max) == rotating.code(forStep: Int64(Int32.max)), "clamped to 32 bits")
        #expect(rotating.code(forStep: .min) == rotating.code(forStep: Int64(Int32.min)))
        #expect(rotating.validate(rotating.code(forStep: .max), at: at(0)) == .fromFuture(step: Int64(Int32.max)))
    }

    // MARK: Authenticity

    @Test func another_secret_or_session_does_not_accept_the_code() {
        let code = rotating.code(at: at(1))
        var otherSecret = Self.secret
        otherSecret[31] ^= 0x80
        let forger = RotatingCode(secret: otherSecret, sessionRef: 4242, openedAt: Self.opened)
        #expect(forger.validate(code, at: at(1)) == .invalid)
        let otherSession = RotatingCode(secret: Self.secret, sessionRef: 4243, openedAt: Self.opened)
        #expect(otherSession.validate(code, at: at(1)) == .invalid)
        #expect(otherSession.validate(otherSession.code(at: at(1)), at: at(1)) == .fresh(step: 0))
        #expect(rotating.validate(otherSession.code(at: at(1)), at: at(1)) == .invalid)
    }

    @Test func tampering_with_ref_step_or_tag_is_detected() {
        let code = rotating.code(forStep: 2)
        let changedStep = reencoded(code) { $0[7] = 1 }
        #expect(rotating.validate(changedStep, at: at(10)) == .invalid, "an earlier step with the same tag")
        let laterStep = reencoded(code) { $0[7] = 3 }
        #expect(rotating.validate(laterStep, at: at(100)) == .invalid, "extending a code's life")
        let changedRef = reencoded(code) { $0[3] ^= 1 }
        #expect(rotating.validate(changedRef, at: at(10)) == .invalid)
        #expect(RotatingCode.sessionRef(of: changedRef) == 4243, "the ref alone is not authenticated")
        for index in 8..<20 {
            let changedTag = reencoded(code) { $0[index] ^= 0x01 }
            #expect(rotating.validate(changedTag, at: at(10)) == .invalid, "tag byte \(index)")
        }
        let zeroTag = reencoded(code) { $0.replaceSubrange(8..<20, with: repeatElement(0, count: 12)) }
        #expect(rotating.validate(zeroTag, at: at(10)) == .invalid)
    }

    @Test func decoding_forgives_lower_case_and_look_alikes() {
        let code = rotating.code(forStep: 2)
        #expect(code.contains("0") && code.contains("1"))
        #expect(rotating.validate(code.lowercased(), at: at(10)) == .fresh(step: 2))
        let lookAlikes = code.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "I")
        #expect(rotating.validate(lookAlikes, at: at(10)) == .fresh(step: 2))
        let lowerLookAlikes = code.replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "l")
        #expect(rotating.validate(lowerLookAlikes, at: at(10)) == .fresh(step: 2))
        #expect(rotating.validate(code.replacingOccurrences(of: "1", with: "L"), at: at(10)) == .fresh(step: 2))
        #expect(RotatingCode.sessionRef(of: lookAlikes) == 4242)
    }

    @Test func any_single_character_change_is_invalid() {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<400 {
            let step = Int64.random(in: -100..<100_000, using: &generator)
            let code = Array(rotating.code(forStep: step))
            let index = Int.random(in: 0..<code.count, using: &generator)
            var changed = code
            repeat {
                changed[index] = Self.alphabet.randomElement(using: &generator)!
            } while changed[index] == code[index]
            let result = rotating.validate(String(changed), at: rotating.start(of: step))
            #expect(result == .invalid, "position \(index) of step \(step)")
        }
    }

    @Test func every_code_validates_fresh_at_its_own_instant_and_expires_on_time() {
        var generator = SeededRandom(seed: 11)
        for _ in 0..<300 {
            let secret = RotatingCode.makeSecret(using: &generator)
            let ref = Int64.random(in: RotatingCode.allowedSessionRefs, using: &generator)
            let period = Int.random(in: RotatingCode.allowedPeriods, using: &generator)
            let grace = Int.random(in: RotatingCode.allowedGrace, using: &generator)
            let opened = Date(timeIntervalSince1970: Double.random(in: 0..<4e9, using: &generator).rounded())
            let rotating = RotatingCode(secret: secret, sessionRef: ref, openedAt: opened, period: period, grace: grace)
            let instant = opened.addingTimeInterval(Double.random(in: -600..<86_400 * 30, using: &generator))
            let code = rotating.code(at: instant)
            let step = rotating.step(at: instant)
            #expect(rotating.validate(code, at: instant) == .fresh(step: step))
            #expect(rotating.validate(code, at: rotating.start(of: step + Int64(grace) + 1)) == .expired(step: step))
            #expect(RotatingCode.sessionRef(of: code) == ref)
            #expect(rotating.validateTyped(rotating.typedCode(at: instant), at: instant) == .fresh(step: step))
        }
    }

    // MARK: Typed codes

    @Test func typed_codes_are_six_digits_valid_in_the_same_window() {
        let typed = rotating.typedCode(forStep: 2)
        #expect(typed.count == RotatingCode.typedLength)
        #expect(typed.allSatisfy { $0.isASCII && $0.isNumber })
        #expect(rotating.typedCode(at: at(12)) == typed)
        #expect(rotating.validateTyped(typed, at: at(9.999)) == .invalid, "the future is not searched")
        #expect(rotating.validateTyped(typed, at: at(10)) == .fresh(step: 2))
        #expect(rotating.validateTyped(typed, at: at(19.999)) == .fresh(step: 2), "last instant of grace")
        #expect(rotating.validateTyped(typed, at: at(20)) == .expired(step: 2), "first instant after grace")
    }

    @Test func typed_codes_forgive_the_space_and_dash_the_screen_shows() {
        let typed = rotating.typedCode(forStep: 2)
        for variant in ["\(typed.prefix(3)) \(typed.suffix(3))", "\(typed.prefix(3))-\(typed.suffix(3))", " \(typed) "]
        {
            #expect(rotating.validateTyped(variant, at: at(10)) == .fresh(step: 2), "\(variant)")
        }
    }

    @Test(arguments: ["", "12345", "1234567", "abcdef", "12345a", "١٢٣٤٥٦", "12 34 5", "+12345", "123.456", "12345\n"])
    func malformed_typed_codes_are_invalid(typed: String) {
        #expect(rotating.validateTyped(typed, at: at(10)) == .invalid)
    }

    @Test func an_old_typed_code_reads_as_expired_within_a_minute_then_invalid() throws {
        let strict = RotatingCode(secret: Self.secret, sessionRef: 9, openedAt: Self.opened, period: 5, grace: 0)
        let typed = strict.typedCode(forStep: 0)
        let collides = (1...13).contains { strict.typedCode(forStep: $0) == typed }
        try #require(!collides, "the vector must not repeat within the lookback")
        #expect(strict.validateTyped(typed, at: at(5)) == .expired(step: 0))
        #expect(strict.validateTyped(typed, at: at(64.999)) == .expired(step: 0), "12 steps of lookback at 5 s")
        #expect(strict.validateTyped(typed, at: at(65)) == .invalid)
    }

    @Test func a_wrong_typed_code_is_invalid() {
        let typed = rotating.typedCode(forStep: 2)
        let window = (-12...2).map { rotating.typedCode(forStep: Int64($0)) }
        var wrong = typed
        var candidate = 0
        while window.contains(wrong) {
            wrong = String(format: "%06d", candidate)
            candidate += 1
        }
        #expect(rotating.validateTyped(wrong, at: at(10)) == .invalid)
        let otherSecret = RotatingCode(secret: Array(Self.secret.reversed()), sessionRef: 4242, openedAt: Self.opened)
        if !window.contains(otherSecret.typedCode(forStep: 2)) {
            #expect(rotating.validateTyped(otherSecret.typedCode(forStep: 2), at: at(10)) == .invalid)
        }
    }

    @Test func typed_codes_are_spread_over_all_digits() {
        var counts = [Int](repeating: 0, count: 10)
        for step in 0..<2000 { counts[Int(String(rotating.typedCode(forStep: Int64(step)).first!))!] += 1 }
        #expect(counts.allSatisfy { (140...260).contains($0) }, "\(counts)")
    }

    // MARK: Secrets and comparison

    @Test func secrets_are_32_bytes_from_the_generator() {
        var system = SystemRandomNumberGenerator()
        let a = RotatingCode.makeSecret(using: &system)
        let b = RotatingCode.makeSecret(using: &system)
        #expect(a.count == 32 && b.count == RotatingCode.secretLength && a != b)
        var first = SeededRandom(seed: 3)
        var second = SeededRandom(seed: 3)
        #expect(RotatingCode.makeSecret(using: &first) == RotatingCode.makeSecret(using: &second))
        var other = SeededRandom(seed: 4)
        #expect(RotatingCode.makeSecret(using: &first) != RotatingCode.makeSecret(using: &other))
    }

    @Test func constant_time_comparison_is_plain_equality_in_result() {
        #expect(constantTimeEqual([], []))
        #expect(constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEqual([0, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(!constantTimeEqual([], [0]))
    }

    // MARK: Base32

    @Test func base32_matches_crockford_vectors_and_round_trips() {
        #expect(Base32.encode(Array("f".utf8)) == "CR")
        #expect(Base32.encode([0xFF]) == "ZW")
        #expect(Base32.encode(Array("hello".utf8)) == "D1JPRV3F")
        #expect(Base32.encode([0, 0, 0, 1]) == "0000008")
        #expect(Base32.encode([]) == "")
        #expect(Base32.decode("d1jprv3f") == Array("hello".utf8))
        #expect(Base32.decode("DIJPRV3F") == Array("hello".utf8), "I reads as 1")
        #expect(Base32.decode("D1JPRU3F") == nil, "U is not in the alphabet")
        var generator = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        }
    }
}
