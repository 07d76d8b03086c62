import Logging
import RollcallCore
import RollcallModel
import RollcallStorage

/// Every store of the application, each made once over one database: the domains' routes, the background services
/// and the command line's maintenance tasks all receive this one value, so no store is made twice (the caches they
/// read through belong to the database, `Caches`).
package struct Stores: Sendable {
    package let database: Database
    package let users: UserStore
    package let tokens: AccessTokenStore
    package let courses: CourseStore
    package let sessions: SessionStore
    package let timetable: TimetableStore
    package let images: ImageStore
    package let checkIns: CheckInStore
    package let quizzes: QuizStore
    package let records: RecordStore
    package let passkeys: PasskeyStore
    package let rooms: RoomStore
    package let counters: AttemptCounters
    package let exposure: ExposureStore
    package let resets: PasswordResets
    package let keys: ServerKeys
    package let phoneCodes: PhoneCodes
    package let devices: RememberedDevices
    package let personal: PersonalData
    package let outbox: Outbox
    /// Background work: the learning platforms' scores.
    package let jobs: JobQueue
    package let proximity: ProximityStore
    package let toolKeys: ToolKeys
    package let platforms: PlatformStore
    package let launchStates: LaunchStates
    package let platformPeople: PlatformPeople
    package let platformCourses: PlatformCourses
    /// The platforms' services, with the service tokens they gave kept until they expire.
    package let platformServices: PlatformServices
    package let courseLinks: CourseLinks
    /// Who may frame Rollcall's pages: the registered platforms, read again from the database every round of the
    /// grade return.
    package let framing = FrameAncestors()

    /// - Parameters:
    ///   - database: the one database every store reads and writes.
    ///   - outbox: where messages go; without one, an outbox that keeps every message for the admin page.
    ///   - jobs: where background work is queued; without one, a queue no bell wakes.
    ///   - retentionDays: how long evidence is kept, which the data download states.
    ///   - language: the school's language (`ROLLCALL_DEFAULT_LANGUAGE`), for what Rollcall says to a platform about
    ///     a course that names none.
    package init(
        database: Database, outbox: Outbox? = nil, jobs: JobQueue? = nil, retentionDays: Int = Retention.defaultDays,
        language: String = "en"
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
        let jobs = jobs ?? JobQueue(database: database)
        self.jobs = jobs
        toolKeys = ToolKeys(database: database)
        platforms = PlatformStore(database: database)
        launchStates = LaunchStates(database: database)
        platformPeople = PlatformPeople(database: database)
        platformCourses = PlatformCourses(database: database, courses: courses)
        platformServices = PlatformServices(keys: toolKeys)
        courseLinks = CourseLinks(
            platforms: platforms, linkedCourses: platformCourses, people: platformPeople, services: platformServices,
            courses: courses, sessions: sessions, records: records,
            jobs: jobs, logger: outbox.logger, language: language)
    }
}
