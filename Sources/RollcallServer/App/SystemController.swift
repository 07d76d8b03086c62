import Foundation
import Hummingbird
import RollcallCore
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Health, metrics and the API description: what operators and client authors read.
struct SystemController: Sendable {
    let database: Database
    /// `ROLLCALL_METRICS_TOKEN`: when set, `/metrics` needs `Authorization: Bearer <token>`.
    var metricsToken: String? = nil
    /// `ROLLCALL_METRICS_NETWORKS`: when not empty, `/metrics` answers only clients in these ranges.
    var metricsNetworks: [NetworkRange] = []

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(SystemRoutes.health, use: health)
        router.get(SystemRoutes.metrics, use: metrics)
        router.get(SystemRoutes.openAPI, use: openAPI)
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await database.checkHealth()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "ok\n"))
        )
    }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        if !metricsNetworks.isEmpty {
            guard let address = context.clientAddress, metricsNetworks.contains(where: { $0.contains(address) }) else {
                throw AppError(
                    .forbidden, .metricsForbidden,
                    "Metrics are served only to the networks in ROLLCALL_METRICS_NETWORKS.")
            }
        }
        if let metricsToken {
            let sent = request.headers[.authorization].flatMap { value in
                value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)) : nil
            }
            guard let sent, constantTimeEqual(Array(sent.utf8), Array(metricsToken.utf8)) else {
                var refusal = try AppError(
                    .unauthorized, .metricsTokenRequired,
                    "Metrics need the token in ROLLCALL_METRICS_TOKEN, sent as “Authorization: Bearer <token>”."
                ).response(from: request, context: context)
                refusal.headers[.wwwAuthenticate] = "Bearer"
                return refusal
            }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: PrometheusMetrics.registry.emitToBuffer()))
        )
    }

    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let data = FileManager.default.contents(atPath: ResourceFiles.path("openapi.yaml")) else {
            throw AppError.notFound(.apiDescriptionNotFound, "API description")
        }
        return Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
