import Hummingbird
import RollcallParts
import RollcallWeb

extension ExposureRoutes {
    /// Adds exposure reports, their audit and pages.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        let reports = ExposureReports(
            exposure: stores.exposure, proximity: stores.proximity, retentionDays: parts.configuration.evidenceDays)
        ExposureController(
            exposure: stores.exposure, reports: reports, users: stores.users,
            evidenceDays: parts.configuration.evidenceDays,
            now: parts.configuration.clock
        ).addRoutes(to: router)
        ExposurePages(
            reports: reports, exposure: stores.exposure, evidenceDays: parts.configuration.evidenceDays,
            clock: parts.configuration.clock, pages: parts.pages
        ).addRoutes(to: router)
    }
}
