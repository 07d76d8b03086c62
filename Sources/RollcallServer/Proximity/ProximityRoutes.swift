import Hummingbird

/// Every path of the phones' proximity evidence.
enum ProximityRoutes {
    static let me = APIPath.api("me/proximity")
    static let ids = APIPath.api("me/proximity-ids")
    static let encounters = APIPath.api("me/proximity-encounters")
    static let request = APIPath.api("exposure-reports/:reportID/proximity-request")
}
