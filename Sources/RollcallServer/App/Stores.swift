import Logging
import RollcallCore
import RollcallModel
import RollcallStorage

/// Every store of the application, each made once over one database: the domains' routes, the background services
/// and the command line's maintenance tasks all receive this one value, so no store is made twice (the caches they
/// read through belong to the database, `Caches`).
struct Stores: Sendable {
    let database: Database
    let users: UserStore
    let tokens: AccessTokenStore
    let courses: CourseStore
    let sessions: SessionStore
    let timetable: TimetableStore
    let images: ImageStore
    let checkIns: CheckInStore
    let quizzes: QuizStore
    let records: RecordStore
    let passkeys: PasskeyStore
    let rooms: RoomStore
    let counters: AttemptCounters
    let exposure: ExposureStore
    let resets: PasswordResets
    let keys: ServerKeys
    let phoneCodes: PhoneCodes
    let devices: RememberedDevices
    let personal: PersonalData
    let outbox: Outbox
    let proximity: ProximityStore
    let toolKeys: ToolKeys
    let platforms: PlatformStore
    let launchStates: LaunchStates
    let platformPeople: PlatformPeople
    let platformCourses: PlatformCourses
    /// The platforms' services, with the service tokens they gave kept until they expire.
    let platformServices: PlatformServices
    let courseLinks: CourseLinks
    /// Who may frame Rollcall's pages: the registered platforms, read again from the database every round of the
    /// grade return.
    let framing = FrameAncestors()

    /// - Parameters:
    ///   - database: the one database every store reads and writes.
    ///   - outbox: where messages go; without one, an outbox that keeps every message for the admin page.
    ///   - retentionDays: how long evidence is kept, which the data download states.
    ///   - language: the school's language (`ROLLCALL_DEFAULT_LANGUAGE`), for what Rollcall says to a platform about
    ///     a course that names none.
    init(
        database: Database, outbox: Outbox? = nil, retentionDays: Int = Retention.defaultDays, language: String = "en"
    ) {
        self.database = database
        users = UserStore(database: database)
        tokens = AccessTokenStore(database: database)
        courses = CourseStore(database: database)
        sessions = SessionStore(database: database)
        timetable = TimetableStore(database: database)
        images = ImageStore(database: database)
        checkIns = CheckInStore(database: database)
        quizzes = QuizStore(database: database)
        records = RecordStore(database: database, quizzes: quizzes)
        passkeys = PasskeyStore(database: database)
        rooms = RoomStore(database: database)
        counters = AttemptCounters(database: database)
        exposure = ExposureStore(database: database)
        resets = PasswordResets(database: database)
        keys = ServerKeys(database: database)
        phoneCodes = PhoneCodes(database: database, keys: keys)
        proximity = ProximityStore(database: database, keys: keys)
        devices = RememberedDevices(database: database, keys: keys, tokens: tokens)
        personal = PersonalData(
            database: database, identities: database.caches.identities, retentionDays: retentionDays)
        let outbox = outbox ?? Outbox(database: database, logger: Logger(label: "rollcall"))
        self.outbox = outbox
        toolKeys = ToolKeys(database: database)
        platforms = PlatformStore(database: database)
        launchStates = LaunchStates(database: database)
        platformPeople = PlatformPeople(database: database)
        platformCourses = PlatformCourses(database: database, courses: courses)
        platformServices = PlatformServices(keys: toolKeys)
        courseLinks = CourseLinks(
            platforms: platforms, linkedCourses: platformCourses, people: platformPeople, services: platformServices,
            courses: courses, sessions: sessions, records: records,
            outbox: outbox, logger: outbox.logger, language: language)
    }
}
