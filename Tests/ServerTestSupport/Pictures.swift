import Foundation

/// Small sound pictures for uploads: the server reads a picture whole and refuses anything else.
public enum Pictures {
    /// A 1×1 PNG.
    public static let png = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)

    /// A JPEG's segments in order, a camera's EXIF included.
    public static let jpeg: [UInt8] = {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        return [0xFF, 0xD8] + segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
            + segment(0xE1, Array("Exif\0\0GPS 48.85N 2.35E".utf8))
            + segment(0xDB, [0] + Array(repeating: 1, count: 64)) + segment(0xC0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0])
            + segment(0xC4, [0] + Array(repeating: 0, count: 16)) + segment(0xDA, [1, 1, 0, 0, 63, 0])
            + [0x12, 0x34, 0xFF, 0xD9]
    }()
}
