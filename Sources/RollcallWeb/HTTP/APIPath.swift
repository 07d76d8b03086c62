import Foundation
import Hummingbird

/// Where the JSON API lives; every area's route table names its paths below it, so the prefix is written once.
public enum APIPath {
    public static let prefix = "/api/v1"

    /// `path` under the API's prefix, such as `/api/v1/courses` for `courses`.
    public static func api(_ path: String) -> RouterPath { RouterPath("\(prefix)/\(path)") }

    /// Whether a request's path belongs to the API, which answers in JSON rather than with pages.
    package static func contains(_ path: String) -> Bool { path.hasPrefix(prefix + "/") }
}

/// The operator's routes: health, metrics and the API description.
public enum SystemRoutes {
    public static let health: RouterPath = "/healthz"
    public static let metrics: RouterPath = "/metrics"
    public static let openAPI = APIPath.api("openapi.yaml")
}

extension RouterPath {
    /// The path with its parameters filled in, such as `/api/v1/sessions/5/live` for `["sessionID": 5]`.
    public func filled(_ values: [String: any CustomStringConvertible]) -> String {
        values.reduce(description) { path, value in
            path.replacingOccurrences(of: "{\(value.key)}", with: value.value.description)
        }
    }
}
