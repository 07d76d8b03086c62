import Hummingbird

/// Every path of the phones' proximity evidence.
package enum ProximityRoutes {
    package static let me = APIPath.api("me/proximity")
    package static let ids = APIPath.api("me/proximity-ids")
    package static let encounters = APIPath.api("me/proximity-encounters")
    package static let request = APIPath.api("exposure-reports/:reportID/proximity-request")
}
