import Hummingbird
import RollcallWeb

/// What every domain's routes are made from, each made once by `buildRouter`: the stores, the rules that several
/// domains share, the page renderer and the settings.
package struct AppParts: Sendable {
    package let stores: Stores
    package let configuration: Configuration
    package let pages: PageRenderer
    /// The one access rule: admin, health officer, course, session, quiz run and attempt.
    package let access: AccessRule
    package let signIns: SignIns
    package let ceremony: PasskeyCeremony
    package let tickets: ScanTickets
    package let passwords: PasswordHasher
    /// Where Rollcall's own pages are, for the live sockets' origin check.
    package let pageOrigin: PageOrigin
    /// Invitation letters within each teacher's daily allowance.
    package let invitationMail: InvitationMail

    package init(stores: Stores, configuration: Configuration, pages: PageRenderer, passwordCost: UInt8) {
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
package typealias AppRouter = Router<AppRequestContext>
