import Foundation
import RollcallCore
import Testing

@Suite("Pictures written anew", .timeLimit(.minutes(5)))
struct PictureFileTests {
    static let png = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)
    static let gif = Array(Data(base64Encoded: "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")!)
    static let webp = Array(Data(base64Encoded: "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")!)

    /// A JPEG's segments in order: what a camera writes, metadata and a comment included.
    static func jpeg(extra: [UInt8] = []) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        return [0xFF, 0xD8] + segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
            + segment(0xE1, Array("Exif\0\0GPS 48.85N 2.35E".utf8)) + segment(0xFE, Array("a comment".utf8))
            + segment(0xDB, [0] + Array(repeating: 1, count: 64)) + segment(0xC0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0])
            + segment(0xC4, [0] + Array(repeating: 0, count: 16)) + segment(0xDA, [1, 1, 0, 0, 63, 0])
            + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56] + [0xFF, 0xD9] + extra
    }

    static func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in typed {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
        return be(UInt32(body.count)) + typed + be(crc)
    }

    @Test func sound_pictures_come_back_as_they_were() throws {
        #expect(try PictureFile.cleaned(Self.png) == ("image/png", Self.png))
        #expect(try PictureFile.cleaned(Self.gif) == ("image/gif", Self.gif))
        #expect(try PictureFile.cleaned(Self.webp) == ("image/webp", Self.webp))
    }

    @Test func text_and_metadata_are_dropped() throws {
        // A PNG with a text chunk after its header.
        let withText =
            Array(Self.png[0..<33]) + Self.pngChunk("tEXt", Array("Comment\0<script>".utf8))
            + Array(Self.png[33...])
        #expect(try PictureFile.cleaned(withText).bytes == Self.png)

        // A JPEG loses its EXIF (a phone's location) and its comment, and keeps what draws it.
        let jpeg = try PictureFile.cleaned(Self.jpeg())
        #expect(jpeg.contentType == "image/jpeg")
        #expect(!jpeg.bytes.contains(0xE1) && !jpeg.bytes.contains(0xFE))
        #expect(jpeg.bytes.count == Self.jpeg().count - (4 + 22) - (4 + 9))
        #expect(jpeg.bytes.suffix(2) == [0xFF, 0xD9])

        // A GIF loses a comment extension.
        let comment: [UInt8] = [0x21, 0xFE, 5] + Array("hello".utf8) + [0]
        let gif = Array(Self.gif[0..<19]) + comment + Array(Self.gif[19...])
        #expect(try PictureFile.cleaned(gif).bytes == Self.gif)

        // A WebP loses an EXIF chunk, and its size says so.
        var webp = Self.webp + Array("EXIF".utf8) + [4, 0, 0, 0] + Array("data".utf8)
        webp[4] = UInt8(webp.count - 8)
        #expect(try PictureFile.cleaned(webp).bytes == Self.webp)
    }

    @Test(
        arguments: [
            (
                "a PNG signature followed by a page",
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("<html><script>alert(1)</script>".utf8)
            ),
            ("something after the PNG's end", png + Array("<script>".utf8)),
            ("a wrong checksum", Array(png[0..<29]) + [png[29] ^ 1] + Array(png[30...])),
            ("a PNG cut short", Array(png[0..<40])),
            ("something after the JPEG's end", jpeg(extra: Array("<html>".utf8))),
            ("a JPEG without its end", Array(jpeg().dropLast(2))),
            ("something after the GIF's end", gif + [0x00]),
            ("a GIF without its end", Array(gif.dropLast())),
            ("a WebP whose size is wrong", webp + [0, 0]),
            ("no picture at all", Array("<svg onload=alert(1)>".utf8)),
            ("nothing", []),
        ] as [(String, [UInt8])])
    func broken_or_disguised_files_are_refused(what: String, bytes: [UInt8]) {
        #expect(throws: PictureFile.Unreadable.self, "\(what)") { try PictureFile.cleaned(bytes) }
    }

    @Test func random_bytes_behind_a_signature_never_crash_the_reader() {
        var random = SystemRandomNumberGenerator()
        for signature in [Array(Self.png[0..<8]), [0xFF, 0xD8], Array("GIF89a".utf8), Array(Self.webp[0..<12])] {
            for _ in 0..<300 {
                let tail = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
                _ = try? PictureFile.cleaned(signature + tail)
            }
        }
    }
}
