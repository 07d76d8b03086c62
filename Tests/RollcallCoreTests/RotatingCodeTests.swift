import Foundation
import Testing

@testable import RollcallCore

@Suite("Rotating code")
struct RotatingCodeTests {
    static let opened = Date(timeIntervalSince1970: 1_800_000_000)
    static let secret = Array(0..<32).map(UInt8.init)
    let rotating = RotatingCode(secret: secret, sessionRef: 4242, openedAt: opened, period: 5, grace: 1)

    func at(_ seconds: Double) -> Date { Self.opened.addingTimeInterval(seconds) }

    @Test func a_code_is_32_upper_case_alphanumeric_characters() {
        let code = rotating.code(at: at(0))
        #expect(code.count == RotatingCode.length)
        #expect(code.count == 32)
        #expect(code.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) })
        #expect(RotatingCode.sessionRef(of: code) == 4242)
    }

    @Test func steps_change_at_period_boundaries() {
        #expect(rotating.step(at: at(0)) == 0)
        #expect(rotating.step(at: at(4.999)) == 0)
        #expect(rotating.step(at: at(5)) == 1)
        #expect(rotating.step(at: at(-0.001)) == -1)
        #expect(rotating.code(at: at(0)) == rotating.code(at: at(4.999)))
        #expect(rotating.code(at: at(4.999)) != rotating.code(at: at(5)))
        #expect(rotating.start(of: 3) == at(15))
    }

    @Test func a_code_is_fresh_through_its_step_and_the_grace_step_then_expired() {
        let code = rotating.code(forStep: 2)  // shown from 10 s to 15 s
        #expect(rotating.validate(code, at: at(10)) == .fresh(step: 2))
        #expect(rotating.validate(code, at: at(14.999)) == .fresh(step: 2))
        #expect(rotating.validate(code, at: at(19.999)) == .fresh(step: 2), "last instant of grace")
        #expect(rotating.validate(code, at: at(20)) == .expired(step: 2), "first instant after grace")
        #expect(rotating.validate(code, at: at(9.999)) == .fromFuture(step: 2))
    }

    @Test func grace_zero_accepts_only_the_current_step() {
        let strict = RotatingCode(secret: Self.secret, sessionRef: 1, openedAt: Self.opened, period: 2, grace: 0)
        let code = strict.code(forStep: 5)
        #expect(strict.validate(code, at: at(11.9)) == .fresh(step: 5))
        #expect(strict.validate(code, at: at(12)) == .expired(step: 5))
    }

    @Test func another_secret_or_session_does_not_accept_the_code() {
        let code = rotating.code(at: at(1))
        var otherSecret = Self.secret
        otherSecret[0] ^= 1
        let forged = RotatingCode(secret: otherSecret, sessionRef: 4242, openedAt: Self.opened)
        #expect(forged.validate(code, at: at(1)) == .invalid)
        let otherSession = RotatingCode(secret: Self.secret, sessionRef: 4243, openedAt: Self.opened)
        #expect(otherSession.validate(code, at: at(1)) == .invalid)
    }

    @Test func decoding_forgives_lower_case_and_look_alikes() {
        let code = rotating.code(at: at(1))
        #expect(rotating.validate(code.lowercased(), at: at(1)) == .fresh(step: 0))
        let lookAlike = code.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "I")
        #expect(rotating.validate(lookAlike, at: at(1)) == .fresh(step: 0))
    }

    @Test(arguments: ["", "ABC", String(repeating: "0", count: 32), String(repeating: "U", count: 32), "!@#$", "é"])
    func malformed_codes_are_invalid_and_never_crash(code: String) {
        #expect(rotating.validate(code, at: at(1)) == .invalid)
    }

    @Test func any_single_character_change_is_invalid() {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<300 {
            let step = Int64.random(in: 0..<10_000, using: &generator)
            let code = Array(rotating.code(forStep: step))
            let index = Int.random(in: 0..<code.count, using: &generator)
            var changed = code
            let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
            repeat { changed[index] = alphabet.randomElement(using: &generator)! } while changed[index] == code[index]
            let result = rotating.validate(String(changed), at: rotating.start(of: step))
            #expect(result == .invalid, "changed position \(index) of step \(step)")
        }
    }

    @Test func every_code_validates_fresh_at_its_own_instant() {
        var generator = SeededRandom(seed: 11)
        for _ in 0..<500 {
            let secret = RotatingCode.makeSecret(using: &generator)
            let ref = Int64.random(in: 1...Int64(UInt32.max), using: &generator)
            let period = Int.random(in: RotatingCode.allowedPeriods, using: &generator)
            let grace = Int.random(in: RotatingCode.allowedGrace, using: &generator)
            let code = RotatingCode(secret: secret, sessionRef: ref, openedAt: Self.opened, period: period, grace: grace)
            let instant = Self.opened.addingTimeInterval(Double.random(in: 0..<86_400, using: &generator))
            #expect(code.validate(code.code(at: instant), at: instant) == .fresh(step: code.step(at: instant)))
            #expect(RotatingCode.sessionRef(of: code.code(at: instant)) == ref)
        }
    }

    @Test func typed_codes_are_six_digits_valid_in_the_same_window() {
        let typed = rotating.typedCode(forStep: 2)
        #expect(typed.count == 6 && typed.allSatisfy(\.isNumber))
        #expect(rotating.validateTyped(typed, at: at(10)) == .fresh(step: 2))
        #expect(rotating.validateTyped("\(typed.prefix(3)) \(typed.suffix(3))", at: at(19.9)) == .fresh(step: 2))
        #expect(rotating.validateTyped(typed, at: at(20)) == .invalid)
        #expect(rotating.validateTyped(typed, at: at(9.9)) == .invalid)
        #expect(rotating.validateTyped("12345", at: at(10)) == .invalid)
        #expect(rotating.validateTyped("abcdef", at: at(10)) == .invalid)
    }

    @Test func secrets_are_32_random_bytes() {
        var generator = SystemRandomNumberGenerator()
        let a = RotatingCode.makeSecret(using: &generator)
        let b = RotatingCode.makeSecret(using: &generator)
        #expect(a.count == 32 && a != b)
    }
}
