import Foundation
import Hummingbird
import RollcallCore
import RollcallWeb
import RollcallWords

/// What Rollcall keeps, for how long, and who sees it, drawn from the settings the server runs with.
struct PrivacyPage: Sendable {
    /// `ROLLCALL_EVIDENCE_DAYS`: how long evidence is kept.
    let evidenceDays: Int
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(PrivacyRoutes.privacyPage, use: privacy)
    }

    @Sendable func privacy(_ request: Request, context: AppRequestContext) async throws -> Response {
        let days = evidenceDays
        let reader = context.reader
        let page = PrivacyPageModel(
            signedIn: context.user != nil,
            keptText: reader.say(days, one: "{0} day, then deleted", other: "{0} days, then deleted"),
            pseudonymKeptText: reader.say(
                days, one: "{0} day after their 5 minutes, or until you turn proximity off",
                other: "{0} days after their 5 minutes, or until you turn proximity off"),
            heardKeptText: reader.say(
                days, one: "{0} day after it was heard, or until you turn proximity off",
                other: "{0} days after it was heard, or until you turn proximity off"),
            reportWindow: reader.say(
                min(Exposure.defaultDays, days), one: "{0} day (at most {1})", other: "{0} days (at most {1})",
                .number(days)))
        return try pages.render(page, title: "Privacy · Rollcall", context: context)
    }
}

struct PrivacyPageModel: PageModel {
    static let template = "privacy"
    var signedIn: Bool
    // How long evidence is kept (`ROLLCALL_EVIDENCE_DAYS`), counted in the reader's language: "1 day", "30 days".
    var keptText: String
    var pseudonymKeptText: String
    var heardKeptText: String
    var reportWindow: String
}
