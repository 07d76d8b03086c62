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

extension Passkey {
    /// Synced passkeys live on every device of the person's account; device-bound ones on one device only.
    func kindText(in reader: Reader) -> String {
        backedUp
            ? reader.say("Synced passkey")
            : backupEligible ? reader.say("Passkey (not synced yet)") : reader.say("Device-bound passkey")
    }
}

extension CourseVerification {
    /// One reuse window the course page offers.
    struct ReuseChoice: Sendable {
        var seconds: Int
        var label: String
        var selected: Bool
    }

    /// The reuse windows the course page offers.
    static func reuseChoices(selected: Int, in reader: Reader) -> [ReuseChoice] {
        var choices = [0, 60, 300, 600, 900, 1800, 3600]
        if !choices.contains(selected) { choices.append(selected) }
        return choices.sorted().map { seconds in
            let label =
                seconds == 0
                ? reader.say("no later check-ins (ask every time)")
                : seconds % 60 == 0
                    ? reader.say(seconds / 60, one: "{0} minute", other: "{0} minutes")
                    : reader.say(seconds, one: "{0} second", other: "{0} seconds")
            return ReuseChoice(seconds: seconds, label: label, selected: seconds == selected)
        }
    }
}

extension CheckInVerificationRecord {
    /// One row of the session page's passkey table.
    struct PageRow: Sendable {
        var student: String
        var passkey: String
        var kind: String
        var kindClass: String
        var reused: Bool
        var when: String
    }

    func pageRow(_ time: TimeText, in reader: Reader) -> PageRow {
        PageRow(
            student: studentName, passkey: passkeyName ?? reader.say("removed passkey"),
            kind: backedUp
                ? reader.say("synced")
                : backupEligible ? reader.say("syncable, not synced") : reader.say("device-bound"),
            kindClass: backedUp ? "evidence-synced" : "evidence-bound", reused: reused, when: time.moment(createdAt))
    }
}
