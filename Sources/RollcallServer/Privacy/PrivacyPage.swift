import Foundation
import Hummingbird
import RollcallCore

/// What Rollcall keeps, for how long, and who sees it, drawn from the settings the server runs with.
struct PrivacyPage: Sendable {
    let configuration: Configuration
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(PrivacyRoutes.privacyPage, use: privacy)
    }

    @Sendable func privacy(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            PrivacyPageModel(
                evidenceDays: configuration.evidenceDays,
                reportDays: min(Exposure.defaultDays, configuration.evidenceDays), signedIn: context.user != nil),
            title: "Privacy · Rollcall", context: context)
    }
}

struct PrivacyPageModel: PageModel {
    static let template = "privacy"
    /// `ROLLCALL_EVIDENCE_DAYS`.
    var evidenceDays: Int
    var reportDays: Int
    var signedIn: Bool
}
