import Hummingbird
import RollcallWeb

/// What every domain's routes are made from, each made once by `buildRouter`: the stores, the rules that several
/// domains share, the page renderer and the settings.
struct AppParts: Sendable {
    let stores: Stores
    let configuration: Configuration
    let pages: PageRenderer
    /// The one access rule: admin, health officer, course, session, quiz run and attempt.
    let access: AccessRule
    let signIns: SignIns
    let ceremony: PasskeyCeremony
    let tickets: ScanTickets
    let passwords: PasswordHasher
    /// Where Rollcall's own pages are, for the live sockets' origin check.
    let pageOrigin: PageOrigin
    /// Invitation letters within each teacher's daily allowance.
    let invitationMail: InvitationMail

    init(stores: Stores, configuration: Configuration, pages: PageRenderer, passwordCost: UInt8) {
        self.stores = stores
        self.configuration = configuration
        self.pages = pages
        access = AccessRule(courses: stores.courses, sessions: stores.sessions, quizzes: stores.quizzes)
        signIns = SignIns(tokens: stores.tokens, users: stores.users, configuration: configuration)
        ceremony = PasskeyCeremony(passkeys: stores.passkeys, relyingParty: configuration.relyingParty)
        tickets = ScanTickets(sessions: stores.sessions)
        passwords = PasswordHasher(cost: passwordCost)
        pageOrigin = PageOrigin(publicURL: configuration.publicURL)
        invitationMail = InvitationMail(configuration, stores: stores)
    }
}

/// The router every domain adds its routes to.
typealias AppRouter = Router<AppRequestContext>
