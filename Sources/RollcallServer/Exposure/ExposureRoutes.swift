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
