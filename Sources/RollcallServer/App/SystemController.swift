import Foundation
import Hummingbird

/// Health, metrics and the API description: what operators and client authors read.
struct SystemController: Sendable {
    let database: Database

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(SystemRoutes.health, use: health)
        router.get(SystemRoutes.metrics, use: metrics)
        router.get(SystemRoutes.openAPI, use: openAPI)
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard await database.ping() else {
            throw AppError(.serviceUnavailable, "database_unavailable", "The database does not answer.")
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "ok\n"))
        )
    }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: PrometheusMetrics.registry.emitToBuffer()))
        )
    }

    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let data = FileManager.default.contents(atPath: ResourceFiles.path("openapi.yaml")) else {
            throw AppError.notFound("API description")
        }
        return Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
