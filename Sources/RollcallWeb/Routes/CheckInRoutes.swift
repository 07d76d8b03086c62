import Foundation
import Hummingbird

/// Every path of checking in: the scanned link, the check-in page and API, the passkey step and the projector.
public enum CheckInRoutes {
    public static let checkIns = APIPath.api("check-ins")
    public static let passkeyOptions = APIPath.api("check-ins/passkey-options")
    public static let verifications = APIPath.api("sessions/:sessionID/verifications")
    public static let projector = APIPath.api("sessions/:sessionID/projector")
    public static let projectorLive = APIPath.api("sessions/:sessionID/projector/live")

    /// The link in the QR code; both cases, since the QR code holds an upper-case link for the compact
    /// alphanumeric mode.
    public static let scan: RouterPath = "/c/:code"
    public static let scanUpperCase: RouterPath = "/C/:code"
    public static let checkInPage: RouterPath = "/check-in/:ticket"
    public static let projectorPage: RouterPath = "/sessions/:sessionID/projector"

    /// The check-in page of a ticket.
    public static func checkInPage(ticket: String) -> String { "/check-in/\(ticket)" }

    /// The link in the QR code, upper-cased where case does not matter so the QR can use alphanumeric mode.
    public static func scanURL(publicURL: String, code: String) -> String {
        guard let url = URL(string: publicURL), let scheme = url.scheme, let host = url.host else {
            return "\(publicURL)/c/\(code)"
        }
        let port = url.port.map { ":\($0)" } ?? ""
        let path = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
        return "\(scheme)://\(host)\(port)".uppercased() + path + "/C/" + code
    }
}
