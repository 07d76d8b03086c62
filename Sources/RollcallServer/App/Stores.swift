import Logging

/// Every store over one database, handed to the controllers together.
struct Stores: Sendable {
    let database: Database
    let users: UserStore
    let tokens: AccessTokenStore
    let courses: CourseStore
    let sessions: SessionStore
    let images: ImageStore
    /// One for the whole server, so that every check-in joins the same group commit.
    let checkIns: CheckInStore
    let outbox: Outbox
    let records: RecordStore
    let passkeys: PasskeyStore

    init(database: Database, logger: Logger) {
        self.database = database
        let identities = IdentityCache()
        users = UserStore(database: database, identities: identities)
        tokens = AccessTokenStore(database: database, identities: identities)
        courses = CourseStore(database: database)
        sessions = SessionStore(database: database)
        images = ImageStore(database: database)
        checkIns = CheckInStore(database: database, sessions: sessions)
        outbox = Outbox(database: database, logger: logger)
        records = RecordStore(database: database)
        passkeys = PasskeyStore(database: database)
    }
}
