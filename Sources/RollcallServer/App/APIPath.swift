import Hummingbird

/// Where the JSON API lives; every area's route table names its paths below it, so the prefix is written once.
enum APIPath {
    static let prefix = "/api/v1"

    /// `path` under the API's prefix, such as `/api/v1/courses` for `courses`.
    static func api(_ path: String) -> RouterPath { RouterPath("\(prefix)/\(path)") }

    /// Whether a request's path belongs to the API, which answers in JSON rather than with pages.
    static func contains(_ path: String) -> Bool { path.hasPrefix(prefix + "/") }
}

/// The operator's routes: health, metrics and the API description.
enum SystemRoutes {
    static let health: RouterPath = "/healthz"
    static let metrics: RouterPath = "/metrics"
    static let openAPI = APIPath.api("openapi.yaml")
}
