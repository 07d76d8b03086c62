import Foundation
import Testing

@testable import QRCode

@Suite("QR encoder", .timeLimit(.minutes(5)))
struct QRCodeTests {
    @Test func modes_are_chosen_by_content() {
        #expect(Segment("0123456789").mode == .numeric)
        #expect(Segment("HTTPS://X.EDU/C/AB12").mode == .alphanumeric)
        #expect(Segment("https://x.edu").mode == .byte)
        #expect(Segment("Grüße").mode == .byte)
    }

    @Test func hello_world_1_m_matches_the_standards_worked_example() {
        // The data and error-correction codewords of "HELLO WORLD" at 1-M, as published with the standard's example.
        let data = Segment("HELLO WORLD").codewords(version: 1, level: .medium)
        #expect(data == [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17])
        let ec = ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10))
        #expect(ec == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func format_and_version_information_match_the_standards_tables() {
        #expect(Matrix.formatBits(level: .medium, mask: 5) == 0b100_0000_1100_1110)
        #expect(Matrix.formatBits(level: .low, mask: 4) == 0b110_0110_0010_1111)
        #expect(Matrix.versionBits(7) == 0x07C94)
        #expect(Matrix.versionBits(40) == 0x28C69)
    }

    @Test func alignment_patterns_sit_where_the_standard_puts_them() {
        #expect(Matrix.alignmentPositions(version: 1) == [])
        #expect(Matrix.alignmentPositions(version: 2) == [6, 18])
        #expect(Matrix.alignmentPositions(version: 7) == [6, 22, 38])
        #expect(Matrix.alignmentPositions(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(Matrix.alignmentPositions(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    @Test func capacities_match_the_standard() {
        #expect(Capacity.totalCodewords(version: 1) == 26)
        #expect(Capacity.totalCodewords(version: 40) == 3706)
        #expect(Capacity.dataCodewords(version: 1, level: .low) == 19)
        #expect(Capacity.dataCodewords(version: 40, level: .high) == 1276)
        #expect(Capacity.dataCodewords(version: 10, level: .quartile) == 154)
    }

    @Test func the_longest_text_that_fits_a_version_stays_in_it_and_one_more_moves_up() throws {
        // Version 1-L holds 41 digits, 25 alphanumeric characters or 17 bytes.
        for (fits, character) in [(41, "7"), (25, "A"), (17, "a")] {
            let full = try QRCode(encoding: String(repeating: character, count: fits), errorCorrection: .low)
            #expect(full.version == 1)
            let over = try QRCode(encoding: String(repeating: character, count: fits + 1), errorCorrection: .low)
            #expect(over.version == 2)
        }
        #expect(try QRCode(encoding: String(repeating: "a", count: 2953), errorCorrection: .low).version == 40)
    }

    @Test func too_much_text_or_a_bad_version_throws() {
        #expect(throws: QRCodeError.dataTooLong(length: 2954, errorCorrection: .low)) {
            try QRCode(encoding: String(repeating: "a", count: 2954), errorCorrection: .low)
        }
        #expect(throws: QRCodeError.invalidVersion(41)) { try QRCode(encoding: "x", minimumVersion: 41) }
        #expect(throws: QRCodeError.invalidVersion(0)) { try QRCode(encoding: "x", minimumVersion: 0) }
    }

    @Test func the_symbol_has_finders_timing_and_the_dark_module() throws {
        let code = try QRCode(encoding: "Rollcall", minimumVersion: 3)
        #expect(code.size == 29)
        for (x, y) in [(0, 0), (6, 0), (0, 6), (code.size - 1, 0), (0, code.size - 1)] { #expect(code[x, y]) }
        #expect(!code[1, 1] && code[2, 2] && code[3, 3])
        #expect((8..<(code.size - 8)).allSatisfy { code[$0, 6] == ($0 % 2 == 0) })
        #expect(code[8, code.size - 8])
    }

    @Test func svg_has_a_view_box_and_a_single_path() throws {
        let svg = try QRCode(encoding: "HELLO").svg(moduleSize: 10, quietZone: 4)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 29 29\" width=\"290\""))
        #expect(svg.components(separatedBy: "<path").count == 2)
    }
}
