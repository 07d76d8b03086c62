import Hummingbird
import RollcallParts
import RollcallWeb

extension LiveRoutes {
    /// Adds the teacher's live room socket.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        LiveController(
            rooms: parts.stores.rooms, database: parts.stores.database, access: parts.access,
            pageOrigin: parts.pageOrigin
        ).addRoutes(to: router)
    }
}
