import Foundation
import RollcallCore
import RollcallWords

extension Passkey {
    /// Synced passkeys live on every device of the person's account; device-bound ones on one device only.
    package func kindText(in reader: Reader) -> String {
        backedUp
            ? reader.say("Synced passkey")
            : backupEligible ? reader.say("Passkey (not synced yet)") : reader.say("Device-bound passkey")
    }
}

extension CourseVerification {
    /// One reuse window the course page offers.
    package struct ReuseChoice: Sendable {
        package var seconds: Int
        package var label: String
        package var selected: Bool
    }

    /// The reuse windows the course page offers.
    package static func reuseChoices(selected: Int, in reader: Reader) -> [ReuseChoice] {
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
    package struct PageRow: Sendable {
        package var student: String
        package var passkey: String
        package var kind: String
        package var kindClass: String
        package var reused: Bool
        package var when: String
    }

    package func pageRow(_ time: TimeText, in reader: Reader) -> PageRow {
        PageRow(
            student: studentName, passkey: passkeyName ?? reader.say("removed passkey"),
            kind: backedUp
                ? reader.say("synced")
                : backupEligible ? reader.say("syncable, not synced") : reader.say("device-bound"),
            kindClass: backedUp ? "evidence-synced" : "evidence-bound", reused: reused, when: time.moment(createdAt))
    }
}
