import Hummingbird

/// Every path of exposure reports and their audit.
enum ExposureRoutes {
    static let reports = APIPath.api("exposure-reports")
    static let report = APIPath.api("exposure-reports/:reportID")
    static let reportCSV = APIPath.api("exposure-reports/:reportID/report.csv")
    static let audit = APIPath.api("admin/exposure-reports")
    static let aboutMe = APIPath.api("me/exposure-reports")
    static let grant = APIPath.api("admin/users/:userID/health-officer")
}

extension ExposureRoutes {
    static let exposurePage: RouterPath = "/exposure"
    static let reportPage: RouterPath = "/exposure/reports/:reportID"
}

extension ExposureRoutes {
    /// Adds exposure reports, their audit and pages.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        let reports = ExposureReports(
            exposure: stores.exposure, proximity: stores.proximity, retentionDays: parts.configuration.evidenceDays)
        ExposureController(
            exposure: stores.exposure, reports: reports, users: stores.users,
            evidenceDays: parts.configuration.evidenceDays,
            now: parts.configuration.clock
        ).addRoutes(to: router)
        ExposurePages(
            reports: reports, exposure: stores.exposure, configuration: parts.configuration, pages: parts.pages
        ).addRoutes(to: router)
    }
}
