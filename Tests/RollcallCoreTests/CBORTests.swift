import PasskeyTestSupport
import Testing

@testable import RollcallCore

@Suite("CBOR", .timeLimit(.minutes(5)))
struct CBORTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// Examples from RFC 8949, Appendix A, within the accepted subset.
    static let examples: [(String, CBOR)] = [
        ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .negative(0)), ("3863", .negative(99)), ("3903e7", .negative(999)),
        ("3bffffffffffffffff", .negative(UInt64.max)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6161", .text("a")),
        ("6449455446", .text("IETF")), ("62c3bc", .text("ü")), ("63e6b0b4", .text("水")),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("80", .array([])),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        (
            "8301820203820405",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        ),
        ("a0", .map([])), ("a201020304", .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
        (
            "a26161016162820203",
            .map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])
        ),
    ]

    @Test(arguments: examples)
    func decodes_the_standards_examples(hex: String, expected: CBOR) throws {
        #expect(try CBORDecoder().decode(Self.bytes(hex)) == expected)
        #expect(CBORWriter.encode(expected) == Self.bytes(hex))
    }

    @Test func integers_read_as_swift_integers_where_they_fit() throws {
        #expect(CBOR.unsigned(7).int == 7)
        #expect(CBOR.negative(6).int == -7)
        #expect(CBOR.negative(256).int == -257)
        #expect(CBOR.unsigned(UInt64.max).int == nil)
        #expect(CBOR.negative(UInt64.max).int == nil)
        #expect(CBOR.text("7").int == nil)
    }

    /// Every way outside the subset or malformed, with the error it must give.
    static let malformed: [(String, CBORError)] = [
        ("", CBORError.truncated), ("18", .truncated), ("19 01", .truncated), ("1a000000", .truncated),
        ("1b00000000000000", .truncated), ("42 01", .truncated), ("62 61", .truncated), ("82 01", .truncated),
        ("a1 01", .truncated), ("5a ffffffff", .tooLong), ("9b 0000000100000000", .tooLong),
        ("5f 41 01 ff", .indefiniteLength), ("9f ff", .indefiniteLength), ("bf ff", .indefiniteLength),
        ("1f", .indefiniteLength), ("1c", .reservedAdditionalInfo), ("3d", .reservedAdditionalInfo),
        ("fc", .reservedAdditionalInfo), ("ff", .indefiniteLength), ("c1 00", .unsupportedItem),
        ("f7", .unsupportedItem), ("f9 3c00", .unsupportedItem), ("fa 47c35000", .unsupportedItem),
        ("fb 3ff199999999999a", .unsupportedItem), ("f8 20", .unsupportedItem), ("e0", .unsupportedItem),
        ("62 c328", .invalidText), ("61 ff", .invalidText), ("a2 01 02 01 03", .duplicateKey),
        ("00 00", .trailingBytes), ("f6 f6", .trailingBytes),
    ]

    @Test(arguments: malformed)
    func refuses_malformed_and_unsupported_items(hex: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder().decode(Self.bytes(hex.replacingOccurrences(of: " ", with: ""))) }
    }

    @Test func nesting_and_length_are_bounded() throws {
        let deep = [UInt8](repeating: 0x81, count: 17) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder(maxDepth: 16).decode(deep) }
        #expect(try CBORDecoder(maxDepth: 17).decode(deep) != .null)
        let long = CBORWriter.encode(.bytes([UInt8](repeating: 7, count: 300)))
        #expect(throws: CBORError.tooLong) { try CBORDecoder(maxLength: 299).decode(long) }
        #expect(try CBORDecoder(maxLength: 300).decode(long) == .bytes([UInt8](repeating: 7, count: 300)))
        // A map claiming more pairs than bytes left is refused before anything is allocated for it.
        #expect(throws: CBORError.truncated) { try CBORDecoder().decode([0xb9, 0xff, 0xff, 0x00]) }
    }

    @Test func decoding_a_prefix_leaves_what_follows() throws {
        let (item, end) = try CBORDecoder().decodePrefix([0x99, 0x82, 0x01, 0x02, 0xaa], from: 1)
        #expect(item == .array([.unsigned(1), .unsigned(2)]))
        #expect(end == 4)
    }

    /// Every prefix of a real attestation object, and thousands of random and mutated inputs, give an item or a
    /// typed error: never a crash, never a hang.
    @Test func truncated_random_and_mutated_bytes_never_crash() throws {
        let authenticator = SoftwareAuthenticator()
        let object = authenticator.register(challenge: [1, 2, 3], format: "packed").attestationObject
        #expect(try CBORDecoder().decode(object)["fmt"] == .text("packed"))
        for end in 0..<object.count {
            #expect(throws: CBORError.self) { try CBORDecoder().decode(Array(object[0..<end])) }
        }
        var random = SeededRandom(seed: 4)
        var outcomes = (decoded: 0, refused: 0)
        for round in 0..<20_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            } else {
                input = object
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    input[Int.random(in: 0..<input.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            do {
                _ = try CBORDecoder().decode(input)
                outcomes.decoded += 1
            } catch {
                outcomes.refused += 1
            }
            _ = try? AuthenticatorData(bytes: input)
            _ = try? COSEKey(bytes: input)
        }
        #expect(outcomes.decoded > 0 && outcomes.refused > 0)
    }
}
