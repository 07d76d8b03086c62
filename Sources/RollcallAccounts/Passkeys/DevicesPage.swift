import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The Devices page: a person's passkeys, to add, rename and remove, and the browsers remembered after a texted
/// code, to forget.
struct DevicesPage: Sendable {
    let passkeys: PasskeyStore
    let remembered: RememberedDevices
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(PasskeyRoutes.devicesPage, use: devices)
    }

    @Sendable func devices(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let reader = context.reader
        let time = user.timeText(in: reader)
        let passkeys = try await self.passkeys.list(userID: user.id)
        let rows = passkeys.map { passkey in
            DevicesPageModel.Row(
                id: passkey.id, name: passkey.name, kind: passkey.kindText(in: reader),
                created: time.moment(passkey.createdAt),
                lastUsed: passkey.lastUsedAt.map { reader.say("last used \(time.moment($0))") }
                    ?? reader.say("not used yet"))
        }
        let here = try await remembered.current(request)
        let browsers = try await remembered.list(userID: user.id).map { device in
            DevicesPageModel.Browser(
                id: device.id, name: device.name, phone: PhoneNumber.masked(device.phone),
                remembered: time.moment(device.createdAt), until: time.moment(device.expiresAt),
                lastUsed: device.lastUsedAt.map { reader.say("signed in without a code \(time.moment($0))") }
                    ?? reader.say("not used since"),
                current: device.id == here)
        }
        let page = DevicesPageModel(
            passkeys: rows, empty: rows.isEmpty, count: rows.count,
            suggestedName: rows.isEmpty ? reader.say("My phone") : reader.say("Passkey \(rows.count + 1)"),
            browsers: browsers,
            hasBrowsers: !browsers.isEmpty)
        return try pages.render(page, title: "Devices · Rollcall", context: context)
    }
}

/// What the Devices page shows: the person's passkeys, and a name for the next one.
struct DevicesPageModel: PageModel {
    static let template = "devices"

    struct Row: Sendable {
        var id: Int64
        var name: String
        var kind: String
        var created: String
        var lastUsed: String
    }

    /// A browser remembered after a texted-code sign-in.
    struct Browser: Sendable {
        var id: Int64
        var name: String
        var phone: String
        var remembered: String
        var until: String
        var lastUsed: String
        /// The browser showing this page.
        var current: Bool
    }

    var passkeys: [Row]
    var empty: Bool
    var count: Int
    var suggestedName: String
    var browsers: [Browser]
    var hasBrowsers: Bool
}
