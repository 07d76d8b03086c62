import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import RollcallCore

/// Builds the Rollcall application: database, migrations, routes and pages, ready to run.
public func buildApplication(
    _ configuration: Configuration, passwordCost: UInt8? = nil
) async throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "rollcall")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    let database = try openDatabase(configuration, logger: logger)
    let bell = DeliveryBell()
    let couriers = configuredCouriers(configuration)
    let outbox = Outbox(database: database, logger: logger, delivered: Set(couriers.keys), bell: bell)
    let router = try await buildRouter(
        configuration: configuration, database: database, logger: logger,
        passwordCost: passwordCost ?? UInt8(configuration.bcryptCost), outbox: outbox)
    let (migrated, schemaReady) = AsyncStream<Void>.makeStream()
    let retention = EvidenceRetention(
        database: database, days: configuration.evidenceDays, logger: logger, ready: migrated)
    let (sweepMigrated, sweepReady) = AsyncStream<Void>.makeStream()
    let sweep = QuizSweep(quizzes: QuizStore(database: database), interval: .seconds(2), ready: sweepMigrated)
    let (openerMigrated, openerReady) = AsyncStream<Void>.makeStream()
    let opener = TimetableOpener(
        timetable: TimetableStore(database: database), interval: .seconds(10), ready: openerMigrated)
    let (deliveryMigrated, deliveryReady) = AsyncStream<Void>.makeStream()
    let delivery = OutboxDelivery(
        queue: OutboxQueue(database: database), couriers: couriers, bell: bell, ready: deliveryMigrated,
        logger: logger, retry: configuration.mailRetry, poll: configuration.mailPoll)
    let (noticesMigrated, noticesReady) = AsyncStream<Void>.makeStream()
    let notices = AbsenceNoticeSender(
        notices: AbsenceNotices(
            database: database, outbox: outbox, school: configuration.schoolName, publicURL: configuration.publicURL,
            logger: logger),
        interval: .seconds(300), ready: noticesMigrated, logger: logger)
    let server = try serverBuilder(configuration, router: router)
    var app = Application(
        router: router,
        server: server,
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "Rollcall"),
        services: [database] + database.liveServices + [retention, sweep, opener, notices]
            + (couriers.isEmpty ? [] : [delivery]),
        logger: logger
    )
    app.beforeServerStarts {
        try await Migrations.apply(to: database)
        schemaReady.yield()
        schemaReady.finish()
        sweepReady.yield()
        sweepReady.finish()
        openerReady.yield()
        openerReady.finish()
        deliveryReady.yield()
        deliveryReady.finish()
        noticesReady.yield()
        noticesReady.finish()
        logger.info("database ready", metadata: ["engine": "\(database.engine.rawValue)"])
    }
    return app
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

/// Wires the application: each store is made once, and each controller and page is handed exactly the stores and
/// services it uses.
func buildRouter(
    configuration: Configuration, database: Database, logger: Logger, passwordCost: UInt8, outbox: Outbox? = nil
) async throws -> Router<AppRequestContext> {
    let pages = try await PageRenderer.load()
    let identities = IdentityCache()
    let users = UserStore(database: database, identities: identities)
    let tokens = AccessTokenStore(database: database, identities: identities)
    let courses = CourseStore(database: database)
    let sessions = SessionStore(database: database)
    let images = ImageStore(database: database)
    let checkIns = CheckInStore(database: database)
    let outbox = outbox ?? Outbox(database: database, logger: logger)
    let quizzes = QuizStore(database: database)
    let records = RecordStore(database: database, quizzes: quizzes)
    let passkeys = PasskeyStore(database: database)
    database.notices.observe { notice in
        identities.forget(notice)
        passkeys.forget(notice)
        sessions.fixed.forget(notice)
    }
    let rooms = RoomStore(database: database)
    let counters = AttemptCounters(database: database)
    let exposure = ExposureStore(database: database)
    let personal = PersonalData(database: database, identities: identities, retentionDays: configuration.evidenceDays)
    let access = AccessRule(courses: courses, sessions: sessions)
    let signIns = SignIns(tokens: tokens, configuration: configuration)
    let ceremony = PasskeyCeremony(passkeys: passkeys, relyingParty: configuration.relyingParty)
    let tickets = ScanTickets(sessions: sessions)
    let verification = CheckInVerification(
        passkeys: passkeys, ceremony: ceremony, tickets: tickets, sessions: sessions, checkIns: checkIns,
        access: access)
    let desk = CheckInDesk(
        sessions: sessions, tickets: tickets, checkIns: checkIns, verification: verification, courses: courses,
        counters: counters)

    let router = Router(context: AppRequestContext.self)
    _ = PrometheusMetrics.registry
    router.add(middleware: ClientAddressMiddleware(trustedProxies: configuration.trustedProxies))
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: LogRequestsMiddleware(.debug))
    let routeIndex = RouteIndex()
    router.add(middleware: ErrorMiddleware(pages: pages))
    router.add(middleware: MethodNotAllowedMiddleware(routes: routeIndex))
    router.add(middleware: AssetsMiddleware())
    router.add(middleware: AuthenticationMiddleware(tokens: tokens))

    SystemController(
        database: database, metricsToken: configuration.metricsToken, metricsNetworks: configuration.metricsNetworks
    ).addRoutes(to: router)
    AccountsController(
        users: users, tokens: tokens, images: images, courses: courses, signIns: signIns,
        configuration: configuration, passwords: PasswordHasher(cost: passwordCost), mail: outbox, counters: counters
    ).addRoutes(to: router)
    PasswordResetController(
        users: users, tokens: tokens, resets: PasswordResets(database: database),
        passwords: PasswordHasher(cost: passwordCost), mail: outbox, counters: counters, configuration: configuration
    ).addRoutes(to: router)
    let keys = ServerKeys(database: database)
    let devices = RememberedDevices(database: database, keys: keys, tokens: tokens)
    PhoneController(
        users: users, codes: PhoneCodes(database: database, keys: keys), signIns: signIns, devices: devices,
        texts: outbox, counters: counters, configuration: configuration
    ).addRoutes(to: router)
    RememberedDevicesController(devices: devices, users: users, signIns: signIns).addRoutes(to: router)
    AccountPages(pages: pages, exposure: exposure, personal: personal, devices: devices, users: users)
        .addRoutes(to: router)
    PasskeysController(
        passkeys: passkeys, users: users, ceremony: ceremony, signIns: signIns, access: access,
        counters: counters, configuration: configuration
    ).addRoutes(to: router)
    DevicesPage(passkeys: passkeys, remembered: devices, pages: pages).addRoutes(to: router)
    CoursesController(courses: courses, users: users, images: images, access: access, counters: counters)
        .addRoutes(to: router)
    CoursePages(
        courses: courses, sessions: sessions, passkeys: passkeys, records: records,
        timetable: TimetableStore(database: database), access: access, pages: pages
    ).addRoutes(to: router)
    SessionsController(
        sessions: sessions, timetable: TimetableStore(database: database), access: access
    ).addRoutes(to: router)
    SessionPage(
        sessions: sessions, checkIns: checkIns, passkeys: passkeys, records: records, rooms: rooms, access: access,
        pages: pages
    ).addRoutes(to: router)
    CheckInController(desk: desk).addRoutes(to: router)
    verification.addRoutes(to: router)
    CheckInPages(desk: desk, sessions: sessions, passkeys: passkeys, access: access, pages: pages)
        .addRoutes(to: router)
    ProjectorController(
        sessions: sessions, checkIns: checkIns, courses: courses, access: access, live: database.live,
        publicURL: configuration.publicURL
    ).addRoutes(to: router)
    LiveController(
        rooms: rooms, database: database, access: access, pageOrigin: PageOrigin(publicURL: configuration.publicURL)
    ).addRoutes(to: router)
    RecordsController(
        records: records, sessions: sessions, courses: courses, outbox: outbox, access: access,
        configuration: configuration
    ).addRoutes(to: router)
    RecordPages(records: records, sessions: sessions, access: access, pages: pages).addRoutes(to: router)
    AdminController(users: users, outbox: outbox).addRoutes(to: router)
    AdminPage(
        users: users, outbox: outbox, exposure: exposure, resets: PasswordResets(database: database), pages: pages
    ).addRoutes(to: router)
    let reports = ExposureReports(exposure: exposure, retentionDays: configuration.evidenceDays)
    ExposureController(exposure: exposure, reports: reports, users: users, configuration: configuration)
        .addRoutes(to: router)
    ExposurePages(reports: reports, exposure: exposure, configuration: configuration, pages: pages)
        .addRoutes(to: router)
    PrivacyController(personal: personal, users: users, signIns: signIns).addRoutes(to: router)
    PrivacyPage(configuration: configuration, pages: pages).addRoutes(to: router)
    QuizzesController(quizzes: quizzes, courses: courses, sessions: sessions, access: access).addRoutes(to: router)
    AttemptsController(quizzes: quizzes, access: access).addRoutes(to: router)
    QuizPages(quizzes: quizzes, access: access, pages: pages).addRoutes(to: router)
    QuizLiveController(
        quizzes: quizzes, database: database, access: access, pageOrigin: PageOrigin(publicURL: configuration.publicURL)
    ).addRoutes(to: router)
    routeIndex.index(router.routes)
    return router
}
