import Hummingbird
import RollcallParts
import RollcallWeb

extension SessionRoutes {
    /// Adds sessions, timetables and the session page.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        SessionsController(sessions: stores.sessions, timetable: stores.timetable, access: parts.access)
            .addRoutes(to: router)
        SessionPage(
            sessions: stores.sessions, checkIns: stores.checkIns, passkeys: stores.passkeys, records: stores.records,
            rooms: stores.rooms, access: parts.access, pages: parts.pages
        ).addRoutes(to: router)
    }
}
