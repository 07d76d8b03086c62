/// How an attendance record came to be.
public enum RecordSource: String, Codable, CaseIterable, Sendable {
    /// The student scanned the projected QR code.
    case qr
    /// The student typed the short code shown on the projector.
    case typed
    /// The student checked in at a location-only check-in spot.
    case spot
    /// A native client sent the scanned code to the API.
    case api
    /// A teacher set the status by hand.
    case manual
    /// The student had no record when the session closed, and the course marks such students absent.
    case closed
    /// Written by `rollcall demo`.
    case demo

    /// Whether the student checked in themselves.
    public var isCheckIn: Bool { [.qr, .typed, .spot, .api].contains(self) }
}

/// Something a teacher should look at in a session; flags are evidence for a person to judge.
public enum FlagKind: String, Codable, CaseIterable, Sendable {
    /// A student tried to check in from a phone another student already used in the session.
    case deviceAlreadyUsed = "device_already_used"
    /// One passkey was used from two devices in the session.
    case passkeyTwoDevices = "passkey_two_devices"
    /// A passkey's signature counter went backwards: it may have been copied.
    case passkeyCounterRegressed = "passkey_counter_regressed"
    /// A student tried to check in from outside the classroom's reach; the teacher may know why (a wrong fix).
    case triedOutOfRange = "tried_out_of_range"
    /// A student tried to check in, but the phone's location was too imprecise to tell.
    case triedImpreciseLocation = "tried_imprecise_location"

    /// The kinds that record a refused check-in, so that the teacher can mark a student whose phone cannot get in.
    public static let refusedCheckIns: [FlagKind] = [.triedOutOfRange, .triedImpreciseLocation]
}
