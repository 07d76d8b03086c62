import Hummingbird
import RollcallParts
import RollcallWeb

extension RecordRoutes {
    /// Adds corrections, audit logs, reports and the record pages.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        RecordsController(
            records: stores.records, sessions: stores.sessions, courses: stores.courses, access: parts.access
        ).addRoutes(to: router)
        RecordPages(records: stores.records, sessions: stores.sessions, access: parts.access, pages: parts.pages)
            .addRoutes(to: router)
    }
}
