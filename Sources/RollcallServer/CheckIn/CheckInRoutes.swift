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

extension CheckInRoutes {
    /// Adds the scanned link, the check-in API and pages, the passkey step and the projector.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        let verification = CheckInVerification(
            passkeys: stores.passkeys, ceremony: parts.ceremony, tickets: parts.tickets, sessions: stores.sessions,
            access: parts.access)
        let desk = CheckInDesk(
            sessions: stores.sessions, tickets: parts.tickets, checkIns: stores.checkIns,
            verification: verification, counters: stores.counters, proximity: stores.proximity,
            proximityClock: parts.configuration.clock)
        CheckInController(desk: desk).addRoutes(to: router)
        verification.addRoutes(to: router)
        CheckInPages(
            desk: desk, sessions: stores.sessions, passkeys: stores.passkeys, access: parts.access, pages: parts.pages
        ).addRoutes(to: router)
        ProjectorController(
            sessions: stores.sessions, checkIns: stores.checkIns, courses: stores.courses, access: parts.access,
            live: stores.database.hubs.sessions, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
    }
}
