import Foundation
import Hummingbird
import RollcallParts
import RollcallWeb

extension SystemRoutes {
    /// Adds health, metrics and the API description.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        SystemController(
            database: parts.stores.database, metricsToken: parts.configuration.metricsToken,
            metricsNetworks: parts.configuration.metricsNetworks
        ).addRoutes(to: router)
    }
}
