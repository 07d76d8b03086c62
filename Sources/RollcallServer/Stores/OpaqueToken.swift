import Crypto
import Foundation

/// Random bearer secrets (session cookies, API tokens, email links); only their SHA-256 digest is stored.
enum OpaqueToken {
    /// 256 random bits, URL-safe base64 without padding.
    static func make() -> String {
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What the database keeps, so a leaked database reveals no usable token.
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
