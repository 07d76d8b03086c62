import Crypto
import Foundation

/// Random bearer secrets (session cookies, API tokens, email links); only their SHA-256 digest is stored.
package enum OpaqueToken {
    /// 256 random bits, URL-safe base64 without padding.
    package static func make() -> String {
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What the database keeps, so a leaked database reveals no usable token.
    package static func digest(_ token: String) -> String {
        // Hex by table: this runs for every authenticated request, and String(format:) is slow.
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
