import Foundation
import RollcallCore
import RollcallWords

/// The check-in settings fields of a page's form, filled in: the forms that open or timetable a session start from
/// the course's defaults, a scheduled session's correction from its own settings. Drawn by the `check-in-settings`
/// partial, whose field names start with `prefix`.
struct SettingsForm: Sendable {
    struct Size: Sendable {
        var value: String
        var radius: Int
        var selected: Bool
        /// "medium (30 m)", in the reader's language.
        var label: String
    }

    /// A classroom size as the form's list says it.
    static func label(_ size: ClassroomSize, in reader: Reader) -> String {
        let radius = Int(size.radius)
        return switch size {
        case .small: reader.say("small (\(radius) m)")
        case .medium: reader.say("medium (\(radius) m)")
        case .large: reader.say("large (\(radius) m)")
        case .hall: reader.say("lecture hall (\(radius) m)")
        }
    }

    var prefix: String
    /// A timetable entry's minutes come from its own field, not from "open for".
    var withOpenMinutes: Bool
    var qr: Bool
    var typed: Bool
    var spot: Bool
    var openMinutes: String
    var lateAfterMinutes: String
    var period: String
    var latitude: String
    var longitude: String
    var radius: String
    var sizes: [Size]
    var networks: String
    var allowTyping: Bool
    var room: String
    /// Check-ins from the app bring what the phone heard, and the room counts it.
    var askProximity: Bool
    /// A location or network is set: the folded part opens.
    var placed: Bool

    init(
        _ draft: SessionSettingsDraft, prefix: String = "settings", withOpenMinutes: Bool = true, in reader: Reader
    ) {
        let standard = SessionSettings.standard
        let mode = draft.mode ?? standard.mode
        self.prefix = prefix
        self.withOpenMinutes = withOpenMinutes
        qr = mode == .qr
        typed = mode == .typed
        spot = mode == .spot
        openMinutes = String(draft.openMinutes ?? standard.openMinutes)
        // As the rules read a draft: with no "late after", a session given its own length is never late.
        lateAfterMinutes =
            (draft.lateAfterMinutes ?? (draft.openMinutes == nil ? standard.lateAfterMinutes : nil)).map(String.init)
            ?? ""
        period = String(draft.period ?? standard.period)
        latitude = draft.latitude.map { String($0) } ?? ""
        longitude = draft.longitude.map { String($0) } ?? ""
        radius = draft.classroomSize == nil ? draft.radius.map { String(Int($0)) } ?? "" : ""
        sizes = ClassroomSize.allCases.map {
            Size(
                value: $0.rawValue, radius: Int($0.radius), selected: $0 == draft.classroomSize,
                label: Self.label($0, in: reader))
        }
        networks = (draft.allowedNetworks ?? []).joined(separator: ", ")
        allowTyping = draft.allowTyping ?? (mode == .typed)
        room = draft.room ?? ""
        askProximity = draft.askProximity ?? false
        placed =
            draft.latitude != nil || !(draft.allowedNetworks ?? []).isEmpty || allowTyping || askProximity
    }

    /// A session's settings as the draft that would give them again.
    static func draft(_ settings: SessionSettings) -> SessionSettingsDraft {
        SessionSettingsDraft(
            mode: settings.mode, period: settings.period, grace: settings.grace,
            latitude: settings.geofence?.center.latitude, longitude: settings.geofence?.center.longitude,
            radius: settings.classroomSize == nil ? settings.geofence?.radius : nil,
            classroomSize: settings.classroomSize, openMinutes: settings.openMinutes,
            lateAfterMinutes: settings.lateAfterMinutes, allowTyping: settings.allowTyping,
            allowedNetworks: settings.allowedNetworks.map(\.description), room: settings.room,
            typedPeriod: settings.typedPeriod, askProximity: settings.askProximity)
    }
}
