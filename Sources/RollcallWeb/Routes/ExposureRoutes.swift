import Hummingbird

/// Every path of exposure reports and their audit.
package enum ExposureRoutes {
    package static let reports = APIPath.api("exposure-reports")
    package static let report = APIPath.api("exposure-reports/:reportID")
    package static let reportCSV = APIPath.api("exposure-reports/:reportID/report.csv")
    package static let audit = APIPath.api("admin/exposure-reports")
    package static let aboutMe = APIPath.api("me/exposure-reports")
    package static let grant = APIPath.api("admin/users/:userID/health-officer")
}

extension ExposureRoutes {
    package static let exposurePage: RouterPath = "/exposure"
    package static let reportPage: RouterPath = "/exposure/reports/:reportID"
}
