/// An uploaded picture read as what it claims to be, and written anew: a PNG, JPEG, GIF or WebP whose structure
/// holds together from its first byte to its last, with only what draws the picture kept. Text, metadata (EXIF,
/// with a phone photo's location, XMP, comments) and anything after the picture's end are dropped, so a file is
/// never stored as sent: a "PNG" that is a PNG signature followed by HTML is refused.
public enum PictureFile {
    /// A picture that is none of the four kinds, or broken.
    public struct Unreadable: Error, Equatable, Sendable {
        public var reason: String
    }

    /// The picture's media type and its bytes, written anew.
    public static func cleaned(_ bytes: [UInt8]) throws(Unreadable) -> (contentType: String, bytes: [UInt8]) {
        if bytes.starts(with: png) { return ("image/png", try cleanPNG(bytes)) }
        if bytes.starts(with: [0xFF, 0xD8]) { return ("image/jpeg", try cleanJPEG(bytes)) }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            return ("image/gif", try cleanGIF(bytes))
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return ("image/webp", try cleanWebP(bytes))
        }
        throw Unreadable(reason: "not a PNG, JPEG, GIF or WebP picture")
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    // MARK: PNG

    /// The chunks that draw a PNG; every other (text, time, EXIF, colour profiles) is dropped.
    static let pngKept: Set<String> = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND", "gAMA", "sRGB", "acTL", "fcTL", "fdAT"]

    static func cleanPNG(_ bytes: [UInt8]) throws(Unreadable) -> [UInt8] {
        var out = png
        var index = png.count
        var first = true
        var sawData = false
        while true {
            guard index + 12 <= bytes.count else { throw Unreadable(reason: "a PNG chunk runs past the file") }
            let length = Int(be32(bytes, index))
            guard length <= bytes.count - index - 12 else { throw Unreadable(reason: "a PNG chunk runs past the file") }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let body = bytes[(index + 4)..<(index + 8 + length)]
            guard crc32(body) == be32(bytes, index + 8 + length) else {
                throw Unreadable(reason: "a PNG chunk's checksum is wrong")
            }
            if first {
                guard type == "IHDR", length == 13, be32(bytes, index + 8) > 0, be32(bytes, index + 12) > 0 else {
                    throw Unreadable(reason: "a PNG starts with its header")
                }
                first = false
            }
            if type == "IDAT" { sawData = true }
            if pngKept.contains(type) { out += bytes[index..<(index + 12 + length)] }
            index += 12 + length
            if type == "IEND" { break }
        }
        guard sawData else { throw Unreadable(reason: "a PNG without image data") }
        guard index == bytes.count else { throw Unreadable(reason: "something follows the PNG's end") }
        return out
    }

    // MARK: JPEG

    static func cleanJPEG(_ bytes: [UInt8]) throws(Unreadable) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var index = 2
        var sawFrame = false
        while true {
            guard index + 4 <= bytes.count, bytes[index] == 0xFF else {
                throw Unreadable(reason: "a JPEG segment is broken")
            }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else {
                throw Unreadable(reason: "a JPEG segment runs past the file")
            }
            let segment = bytes[index..<(index + 2 + length)]
            switch marker {
            case 0xE1...0xED, 0xEF, 0xFE: break  // metadata (EXIF, XMP…) and comments: dropped
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                sawFrame = true
                out += segment
            case 0xDA:
                guard sawFrame else { throw Unreadable(reason: "a JPEG scan before its frame") }
                // The scan's entropy-coded data runs to the end-of-image marker; markers inside it are escaped.
                guard let end = endOfImage(bytes, from: index + 2 + length) else {
                    throw Unreadable(reason: "a JPEG without its end")
                }
                guard end + 2 == bytes.count else { throw Unreadable(reason: "something follows the JPEG's end") }
                out += bytes[index..<(end + 2)]
                return out
            default: out += segment
            }
            index += 2 + length
        }
    }

    /// The index of the `FF D9` that ends the image, passing over restart markers and later scans' headers.
    static func endOfImage(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF {
                let next = bytes[index + 1]
                if next == 0xD9 { return index }
                if next != 0x00, !(0xD0...0xD7).contains(next), next != 0xFF, index + 3 < bytes.count {
                    // Another segment between scans (a progressive JPEG's tables and scans): skip its header.
                    let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                    index += 2 + max(length, 2)
                    continue
                }
            }
            index += 1
        }
        return nil
    }

    // MARK: GIF

    static func cleanGIF(_ bytes: [UInt8]) throws(Unreadable) -> [UInt8] {
        guard bytes.count >= 13 else { throw Unreadable(reason: "a GIF shorter than its header") }
        let packed = bytes[10]
        var index = 13 + (packed & 0x80 != 0 ? 3 * (1 << (Int(packed & 0x07) + 1)) : 0)
        guard index <= bytes.count else { throw Unreadable(reason: "a GIF's colour table runs past the file") }
        var out = Array(bytes[0..<index])
        var sawImage = false
        func subBlocks(_ from: Int) throws(Unreadable) -> Int {
            var at = from
            while true {
                guard at < bytes.count else { throw Unreadable(reason: "a GIF block runs past the file") }
                let size = Int(bytes[at])
                at += 1 + size
                if size == 0 { return at }
            }
        }
        while true {
            guard index < bytes.count else { throw Unreadable(reason: "a GIF without its end") }
            switch bytes[index] {
            case 0x3B:
                guard sawImage else { throw Unreadable(reason: "a GIF without an image") }
                guard index + 1 == bytes.count else { throw Unreadable(reason: "something follows the GIF's end") }
                return out + [0x3B]
            case 0x2C:
                guard index + 10 <= bytes.count else { throw Unreadable(reason: "a GIF image runs past the file") }
                let local = bytes[index + 9]
                let table = local & 0x80 != 0 ? 3 * (1 << (Int(local & 0x07) + 1)) : 0
                let end = try subBlocks(index + 10 + table + 1)
                guard end <= bytes.count else { throw Unreadable(reason: "a GIF image runs past the file") }
                out += bytes[index..<end]
                index = end
                sawImage = true
            case 0x21:
                guard index + 2 <= bytes.count else { throw Unreadable(reason: "a GIF extension runs past the file") }
                let label = bytes[index + 1]
                let end = try subBlocks(index + 2)
                guard end <= bytes.count else { throw Unreadable(reason: "a GIF extension runs past the file") }
                // Graphic control (timing, transparency) and the looping of animations are kept; comments, plain
                // text and other applications' blocks are not.
                if label == 0xF9 || isLoop(bytes, index) { out += bytes[index..<end] }
                index = end
            default:
                throw Unreadable(reason: "a GIF block of an unknown kind")
            }
        }
    }

    static func isLoop(_ bytes: [UInt8], _ index: Int) -> Bool {
        bytes[index + 1] == 0xFF && index + 14 <= bytes.count && bytes[index + 2] == 11
            && Array(bytes[(index + 3)..<(index + 14)]) == Array("NETSCAPE2.0".utf8)
    }

    // MARK: WebP

    static let webpKept: Set<String> = ["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF"]

    static func cleanWebP(_ bytes: [UInt8]) throws(Unreadable) -> [UInt8] {
        guard Int(le32(bytes, 4)) == bytes.count - 8 else { throw Unreadable(reason: "a WebP whose size is wrong") }
        var chunks: [UInt8] = []
        var index = 12
        var sawImage = false
        while index < bytes.count {
            guard index + 8 <= bytes.count else { throw Unreadable(reason: "a WebP chunk runs past the file") }
            let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let length = Int(le32(bytes, index + 4))
            let padded = length + (length & 1)
            guard padded <= bytes.count - index - 8 else { throw Unreadable(reason: "a WebP chunk runs past the file") }
            if type == "VP8 " || type == "VP8L" || type == "ANMF" { sawImage = true }
            if webpKept.contains(type) {
                var chunk = Array(bytes[index..<(index + 8 + padded)])
                // The extended header says which dropped parts the file had: a colour profile, EXIF, XMP.
                if type == "VP8X", chunk.count > 8 { chunk[8] &= ~(0x20 | 0x08 | 0x04) }
                chunks += chunk
            }
            index += 8 + padded
        }
        guard sawImage else { throw Unreadable(reason: "a WebP without an image") }
        let size = UInt32(4 + chunks.count)
        return Array("RIFF".utf8) + [
            UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24),
        ]
            + Array("WEBP".utf8) + chunks
    }

    // MARK: Bytes

    static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 PNG chunks carry (ISO 3309).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
