import Hummingbird
import RollcallParts
import RollcallWeb

extension ProximityRoutes {
    /// Adds pseudo-IDs, uploads, and a health officer's request for them.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        ProximityController(
            proximity: stores.proximity, counters: stores.counters,
            reports: ExposureReports(
                exposure: stores.exposure, proximity: stores.proximity,
                retentionDays: parts.configuration.evidenceDays),
            retentionDays: parts.configuration.evidenceDays, now: parts.configuration.clock
        ).addRoutes(to: router)
    }
}
