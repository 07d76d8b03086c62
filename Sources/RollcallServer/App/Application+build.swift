import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import RollcallCore

/// Builds the Rollcall application: database, migrations, routes and pages, ready to run.
public func buildApplication(
    _ configuration: Configuration, passwordCost: UInt8 = 12
) async throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "rollcall")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    let database = try openDatabase(configuration, logger: logger)
    let stores = Stores(database: database, logger: logger)
    let router = try await buildRouter(configuration: configuration, stores: stores, passwordCost: passwordCost)
    var app = Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "Rollcall"),
        services: [database] + database.liveServices,
        logger: logger
    )
    app.beforeServerStarts {
        try await Migrations.apply(to: database)
        logger.info("database ready", metadata: ["engine": "\(database.engine.rawValue)"])
    }
    return app
}

/// The configured database: PostgreSQL when a URL is given, else the embedded SQLite file.
public func openDatabase(_ configuration: Configuration, logger: Logger) throws -> Database {
    if let url = configuration.databaseURL {
        return try Database.postgres(url: url, logger: logger)
    }
    return try Database.sqlite(path: configuration.sqlitePath, logger: logger)
}

func buildRouter(
    configuration: Configuration, stores: Stores, passwordCost: UInt8
) async throws -> Router<AppRequestContext> {
    let pages = try await PageRenderer.load()
    let router = Router(context: AppRequestContext.self)
    _ = PrometheusMetrics.registry
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: ErrorMiddleware(pages: pages))
    router.add(middleware: AssetsMiddleware())
    router.add(middleware: AuthenticationMiddleware(tokens: stores.tokens))

    SystemController(database: stores.database).addRoutes(to: router)
    let api = router.group("api/v1")
    let passwords = PasswordHasher(cost: passwordCost)
    let accounts = AccountsController(
        stores: stores, configuration: configuration, passwords: passwords, mail: stores.outbox)
    accounts.addRoutes(to: api)
    PasskeysController(stores: stores, configuration: configuration, accounts: accounts).addRoutes(to: api)
    CheckInVerification(stores: stores, configuration: configuration).addRoutes(to: api)
    CoursesController(stores: stores).addRoutes(to: api)
    SessionsController(stores: stores).addRoutes(to: api)
    AdminController(stores: stores).addRoutes(to: api)
    RecordsController(stores: stores, configuration: configuration).addRoutes(to: api)
    let checkIn = CheckInController(stores: stores, configuration: configuration)
    checkIn.addRoutes(to: api)
    ProjectorController(stores: stores, configuration: configuration).addRoutes(to: router)
    LiveController(stores: stores).addRoutes(to: router)
    PagesController(stores: stores, pages: pages).addRoutes(to: router)
    RecordPages(stores: stores, pages: pages).addRoutes(to: router)
    DevicesPage(stores: stores, pages: pages).addRoutes(to: router)
    CheckInPages(stores: stores, checkInController: checkIn, pages: pages).addRoutes(to: router)
    return router
}
