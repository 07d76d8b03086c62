import Foundation
import Hummingbird
import RollcallParts
import RollcallWeb

extension CheckInRoutes {
    /// Adds the scanned link, the check-in API and pages, the passkey step and the projector.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
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
            sessions: stores.sessions, checkIns: stores.checkIns, access: parts.access,
            live: stores.database.hubs.sessions, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
    }
}
