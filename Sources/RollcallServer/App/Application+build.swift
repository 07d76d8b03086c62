import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import RollcallAccounts
import RollcallCore
import RollcallDelivery
import RollcallHealth
import RollcallModel
import RollcallParts
import RollcallPlatform
import RollcallQuizzes
import RollcallStorage
import RollcallTeaching
import RollcallWeb
import RollcallWords
import ServiceLifecycle

/// Builds the Rollcall application: database, migrations, routes and pages, ready to run.
///
/// This is the composition root: the database, its stores and the background services are made here, once, and
/// handed to the routes (`buildRouter`) and the services alike.
///
/// `onRunning` is called once the server listens: a command says it is running then, not before a bind that fails.
public func buildApplication(
    _ configuration: Configuration, passwordCost: UInt8? = nil,
    onRunning: @escaping @Sendable () async -> Void = {}
) async throws -> some ApplicationProtocol {
    try await buildApplication(
        configuration, passwordCost: passwordCost, migrations: Migrations.steps, onRunning: onRunning)
}

/// The application of a build whose schema is `migrations`: a test of a rolling upgrade starts today's server with
/// one step more, as the next release would have, beside one without it.
package func buildApplication(
    _ configuration: Configuration, passwordCost: UInt8?, migrations: [Migrations.Step],
    onRunning: @escaping @Sendable () async -> Void = {}
) async throws -> some ApplicationProtocol {
    let logger = Logger.rollcall(configuration.logLevel)
    let database = try openDatabase(configuration, logger: logger)
    let bell = DeliveryBell()
    let jobBell = DeliveryBell()
    let couriers = configuredCouriers(configuration)
    let stores = Stores(
        database: database,
        outbox: Outbox(database: database, logger: logger, delivered: Set(couriers.keys), bell: bell),
        jobs: JobQueue(database: database, bell: jobBell), retentionDays: configuration.evidenceDays,
        language: configuration.defaultLanguage)
    let router = try await buildRouter(
        stores: stores, configuration: configuration, passwordCost: passwordCost ?? UInt8(configuration.bcryptCost))
    let schema = SchemaReady()
    var services: [any Service] = [database] + database.liveServices
    services += [
        EvidenceRetention(database: database, days: configuration.evidenceDays, logger: logger, ready: schema),
        Periodically.quizSweep(stores.quizzes, ready: schema, logger: logger),
        Periodically.timetableOpener(stores.timetable, ready: schema, logger: logger),
        Periodically.absenceNoticeSender(
            AbsenceNotices(
                stores: stores, school: configuration.schoolName, language: configuration.defaultLanguage,
                publicURL: configuration.publicURL, logger: logger),
            ready: schema, logger: logger),
        Periodically.invitationSender(InvitationMail(configuration, stores: stores), ready: schema, logger: logger),
        Periodically.gradeReturn(stores, ready: schema, logger: logger),
    ]
    if !couriers.isEmpty {
        services.append(
            OutboxDelivery(
                queue: OutboxQueue(database: database), couriers: couriers, bell: bell, ready: schema,
                logger: logger, retry: configuration.mailRetry, poll: configuration.mailPoll))
    }
    services.append(
        JobRunner(
            queue: stores.jobs,
            couriers: [ScoreCourier(platforms: stores.platforms, services: stores.platformServices)],
            bell: jobBell, ready: schema, logger: logger, retry: configuration.jobRetry, poll: configuration.jobPoll))
    var app = Application(
        router: router,
        server: try serverBuilder(configuration, router: router),
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "Rollcall"),
        services: services,
        onServerRunning: { _ in await onRunning() },
        logger: logger
    )
    app.beforeServerStarts {
        try await Migrations.apply(to: database, steps: migrations)
        schema.open()
        logger.info("database ready", metadata: ["engine": "\(database.engine.rawValue)"])
    }
    return app
}

extension Logger {
    /// The server's logger, at the configured level.
    static func rollcall(_ level: Logger.Level) -> Logger {
        var logger = Logger(label: "rollcall")
        logger.logLevel = level
        return logger
    }
}

/// HTTP/1.1 with the WebSocket upgrade, over TLS when configured, behind the connection rules (`GuardedChannel`).
func serverBuilder(_ configuration: Configuration, router: Router<AppRequestContext>) throws -> HTTPServerBuilder {
    let webSocketResponder = WebSocketUpgradeDecision(base: router.buildResponder())
    let tls = try configuration.tls.map { try $0.serverConfiguration() }
    let connections = ConnectionGuard.Registry(limit: configuration.maxConnections)
    let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
        http1: .init(
            idleTimeout: configuration.idleTimeout,
            // A cookie, a bearer token and a browser's usual headers fit with room to spare; nginx takes 8 KB a line.
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100)
        )
    )
    return HTTPServerBuilder { responder in
        let http = HTTP1WebSocketUpgradeChannel(
            responder: responder, webSocketResponder: webSocketResponder, configuration: channelConfiguration)
        func guarded<Base: ServerChildChannel>(_ base: Base) -> any ServerChildChannel {
            GuardedChannel(
                base: base, connections: connections, idleTimeout: configuration.idleTimeout,
                headTimeout: configuration.requestHeadTimeout)
        }
        if let tls { return guarded(try TLSChannel(http, tlsConfiguration: tls)) }
        return guarded(http)
    }
}

/// The couriers of the configured providers, by channel: SMTP for email when a mail server is set, a webhook for SMS
/// when a gateway is.
func configuredCouriers(_ configuration: Configuration) -> [MessageChannel: any Courier] {
    var couriers: [MessageChannel: any Courier] = [:]
    if let server = configuration.mailServer, let from = configuration.mailFrom {
        let client = SMTPClient(
            server: server, trustRoots: configuration.mailTrustFile.map { .file($0) },
            localName: URL(string: configuration.publicURL)?.host ?? "rollcall.invalid",
            timeout: configuration.smtpTimeout)
        couriers[.email] = MailCourier(client: client, from: from)
    }
    if let url = configuration.smsWebhook, let secret = configuration.smsWebhookSecret {
        couriers[.sms] = WebhookCourier(url: url, secret: secret)
    }
    return couriers
}

/// The configured database: PostgreSQL when a URL is given, else the embedded SQLite file.
public func openDatabase(_ configuration: Configuration, logger: Logger) throws -> Database {
    if let url = configuration.databaseURL {
        return try Database.postgres(url: url, logger: logger)
    }
    return try Database.sqlite(path: configuration.sqlitePath, logger: logger)
}

/// The routes: the middleware every request passes, then each domain's routes, all made from one set of parts.
func buildRouter(
    stores: Stores, configuration: Configuration, passwordCost: UInt8
) async throws -> AppRouter {
    let catalogs = try Catalogs.loadShipped()
    var pages = try PageRenderer.loadShipped()
    pages.framing = stores.framing
    pages.publicOrigin = PageOrigin(publicURL: configuration.publicURL).origin
    let parts = AppParts(stores: stores, configuration: configuration, pages: pages, passwordCost: passwordCost)
    let router = AppRouter(context: AppRequestContext.self)
    _ = PrometheusMetrics.registry
    router.add(middleware: SecurityHeadersMiddleware(servesTLS: configuration.tls != nil))
    router.add(middleware: ClientAddressMiddleware(trustedProxies: configuration.trustedProxies))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    let routeIndex = RouteIndex()
    router.add(middleware: LanguageMiddleware(catalogs: catalogs, fallback: configuration.defaultLanguage))
    router.add(middleware: ErrorMiddleware(pages: parts.pages, database: stores.database))
    router.add(middleware: MethodNotAllowedMiddleware(routes: routeIndex))
    router.add(middleware: AssetsMiddleware())
    router.add(middleware: AuthenticationMiddleware(tokens: stores.tokens))
    router.add(middleware: PersonLanguageMiddleware(catalogs: catalogs, users: stores.users))

    SystemRoutes.addRoutes(to: router, parts)
    AccountRoutes.addRoutes(to: router, parts)
    PasskeyRoutes.addRoutes(to: router, parts)
    CourseRoutes.addRoutes(to: router, parts)
    SessionRoutes.addRoutes(to: router, parts)
    CheckInRoutes.addRoutes(to: router, parts)
    LiveRoutes.addRoutes(to: router, parts)
    RecordRoutes.addRoutes(to: router, parts)
    RosterRoutes.addRoutes(to: router, parts)
    QuizRoutes.addRoutes(to: router, parts)
    ExposureRoutes.addRoutes(to: router, parts)
    ProximityRoutes.addRoutes(to: router, parts)
    PrivacyRoutes.addRoutes(to: router, parts)
    AdminRoutes.addRoutes(to: router, parts)
    LearningPlatformRoutes.addRoutes(to: router, parts)

    routeIndex.index(router.routes)
    return router
}
