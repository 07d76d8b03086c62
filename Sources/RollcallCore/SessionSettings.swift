/// How students may check in to a session.
public enum CheckInMode: String, CaseIterable, Codable, Sendable {
    /// The projected rotating QR code, optionally with a geofence and a typed fallback.
    case qr
    /// A location-only check-in spot: no code, the button works inside the radius while the session is open.
    case spot
    /// Only the short typed code is shown, for rooms without a projector.
    case typed
}

/// The check-in settings a teacher chose for one session, already checked against Rollcall's rules.
public struct SessionSettings: Codable, Equatable, Sendable {
    public var mode: CheckInMode
    /// Seconds each rotating code is shown.
    public var period: Int
    /// How many steps back a scanned code is still accepted.
    public var grace: Int
    /// Where students must be, if anywhere.
    public var geofence: Geofence?
    /// The preset the radius came from, kept to show the teacher what they picked.
    public var classroomSize: ClassroomSize?
    /// Minutes the session accepts check-ins after it opens.
    public var openMinutes: Int
    /// Minutes after opening from which a check-in counts as late; `nil` means never late.
    public var lateAfterMinutes: Int?
    /// Whether a QR session also shows the short typed code.
    public var allowTyping: Bool
    /// Seconds each typed code is shown, longer than a scanned code's so that it can be read and typed from the
    /// back of the room; `nil` in settings saved before it existed, which take `standardTypedPeriod`.
    public var typedPeriod: Int?
    /// Address ranges check-ins must come from; empty means any network.
    public var allowedNetworks: [NetworkRange]
    /// Where the class meets, as people name it ("B204"); reports show this, never coordinates.
    public var room: String?
    /// Whether check-ins from the app bring the pseudo-IDs the phone heard, so the room shows how many classmates'
    /// phones heard each student's. Evidence beside the check-in, never a condition of it; `nil` is off.
    public var askProximity: Bool?

    /// Whether the room counts classmates' phones.
    public var countsProximity: Bool { askProximity == true }

    public static let openMinutesRange = 1...720
    /// Seconds a typed code may be shown: long enough to type, short enough that a code sent to a friend dies soon.
    public static let typedPeriods = 10...60
    public static let standardTypedPeriod = 30

    /// Seconds each typed code is shown.
    public var typedCodePeriod: Int { typedPeriod ?? Self.standardTypedPeriod }
    public static let radiusRange = 5.0...5000.0
    public static let roomLength = 1...80

    public static let standard = SessionSettings(
        mode: .qr, period: 5, grace: 1, geofence: nil, classroomSize: nil, openMinutes: 60,
        lateAfterMinutes: 10, allowTyping: false, allowedNetworks: [], typedPeriod: standardTypedPeriod
    )

    public init(
        mode: CheckInMode, period: Int, grace: Int, geofence: Geofence?, classroomSize: ClassroomSize?,
        openMinutes: Int, lateAfterMinutes: Int?, allowTyping: Bool, allowedNetworks: [NetworkRange],
        room: String? = nil, typedPeriod: Int? = nil, askProximity: Bool? = nil
    ) {
        self.askProximity = askProximity
        self.typedPeriod = typedPeriod
        self.mode = mode
        self.period = period
        self.grace = grace
        self.geofence = geofence
        self.classroomSize = classroomSize
        self.openMinutes = openMinutes
        self.lateAfterMinutes = lateAfterMinutes
        self.allowTyping = allowTyping
        self.allowedNetworks = allowedNetworks
        self.room = room
    }
}

/// What a teacher sent for a session's settings, every field optional; `validated()` fills defaults and checks rules.
public struct SessionSettingsDraft: Codable, Equatable, Sendable {
    public var mode: CheckInMode?
    public var period: Int?
    public var grace: Int?
    public var latitude: Double?
    public var longitude: Double?
    public var radius: Double?
    public var classroomSize: ClassroomSize?
    public var openMinutes: Int?
    public var lateAfterMinutes: Int?
    public var allowTyping: Bool?
    public var allowedNetworks: [String]?
    public var room: String?
    public var typedPeriod: Int?
    public var askProximity: Bool?

    public init(
        mode: CheckInMode? = nil, period: Int? = nil, grace: Int? = nil, latitude: Double? = nil,
        longitude: Double? = nil, radius: Double? = nil, classroomSize: ClassroomSize? = nil,
        openMinutes: Int? = nil, lateAfterMinutes: Int? = nil, allowTyping: Bool? = nil,
        allowedNetworks: [String]? = nil, room: String? = nil, typedPeriod: Int? = nil, askProximity: Bool? = nil
    ) {
        self.askProximity = askProximity
        self.typedPeriod = typedPeriod
        self.mode = mode
        self.period = period
        self.grace = grace
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.classroomSize = classroomSize
        self.openMinutes = openMinutes
        self.lateAfterMinutes = lateAfterMinutes
        self.allowTyping = allowTyping
        self.allowedNetworks = allowedNetworks
        self.room = room
    }

    /// This draft, with each field it leaves out taken from `defaults` (a course's settings for new sessions).
    public func filling(from defaults: SessionSettingsDraft) -> SessionSettingsDraft {
        var filled = self
        filled.mode = mode ?? defaults.mode
        filled.period = period ?? defaults.period
        filled.grace = grace ?? defaults.grace
        // A place is all or nothing: a draft with a location of its own keeps its radius or size too.
        if latitude == nil && longitude == nil && radius == nil && classroomSize == nil {
            filled.latitude = defaults.latitude
            filled.longitude = defaults.longitude
            filled.radius = defaults.radius
            filled.classroomSize = defaults.classroomSize
        }
        filled.openMinutes = openMinutes ?? defaults.openMinutes
        filled.lateAfterMinutes = lateAfterMinutes ?? defaults.lateAfterMinutes
        filled.allowTyping = allowTyping ?? defaults.allowTyping
        filled.allowedNetworks = allowedNetworks ?? defaults.allowedNetworks
        filled.room = room ?? defaults.room
        filled.typedPeriod = typedPeriod ?? defaults.typedPeriod
        filled.askProximity = askProximity ?? defaults.askProximity
        return filled
    }

    /// The settings this draft describes, or the first rule it breaks.
    public func validated() throws(RuleViolation) -> SessionSettings {
        let standard = SessionSettings.standard
        let mode = self.mode ?? standard.mode
        let period = self.period ?? standard.period
        guard RotatingCode.allowedPeriods.contains(period) else {
            throw RuleViolation(field: "period", message: "The code period must be 2 to 60 seconds.")
        }
        let typedPeriod = self.typedPeriod ?? SessionSettings.standardTypedPeriod
        guard SessionSettings.typedPeriods.contains(typedPeriod) else {
            throw RuleViolation(field: "typedPeriod", message: "The typed code's period must be 10 to 60 seconds.")
        }
        let grace = self.grace ?? standard.grace
        guard RotatingCode.allowedGrace.contains(grace) else {
            throw RuleViolation(field: "grace", message: "Grace must be 0 to 5 code periods.")
        }
        let openMinutes = self.openMinutes ?? standard.openMinutes
        guard SessionSettings.openMinutesRange.contains(openMinutes) else {
            throw RuleViolation(field: "openMinutes", message: "A session stays open for 1 to 720 minutes.")
        }
        let lateAfter = self.lateAfterMinutes ?? (self.openMinutes == nil ? standard.lateAfterMinutes : nil)
        if let lateAfter, !(0...openMinutes).contains(lateAfter) {
            throw RuleViolation(
                field: "lateAfterMinutes",
                message: "“Late after” must be between 0 and the \(openMinutes) minutes the session stays open."
            )
        }
        let geofence = try geofence()
        if mode == .spot && geofence == nil {
            throw RuleViolation(
                field: "latitude",
                message: "A check-in spot needs the classroom's location: set latitude, longitude and a radius or size."
            )
        }
        var networks: [NetworkRange] = []
        for text in allowedNetworks ?? [] {
            guard let range = NetworkRange(cidr: text.trimmingWhitespace()) else {
                throw RuleViolation(
                    field: "allowedNetworks",
                    message: "“\(text)” is not an address range; write it like 10.0.0.0/8 or 2001:db8::/32."
                )
            }
            networks.append(range)
        }
        let room = self.room?.trimmingWhitespace()
        if let room, !room.isEmpty, !SessionSettings.roomLength.contains(room.count) {
            throw RuleViolation(field: "room", message: "A room's name is at most 80 characters, such as “B204”.")
        }
        return SessionSettings(
            mode: mode, period: period, grace: grace, geofence: geofence,
            classroomSize: geofence == nil ? nil : classroomSize, openMinutes: openMinutes,
            lateAfterMinutes: lateAfter, allowTyping: allowTyping ?? (mode == .typed), allowedNetworks: networks,
            room: room?.isEmpty == false ? room : nil, typedPeriod: typedPeriod,
            askProximity: askProximity == true ? true : nil
        )
    }

    private func geofence() throws(RuleViolation) -> Geofence? {
        switch (latitude, longitude) {
        case (nil, nil):
            if radius != nil || classroomSize != nil {
                throw RuleViolation(
                    field: "latitude", message: "A radius needs the classroom's latitude and longitude.")
            }
            return nil
        case (let latitude?, let longitude?):
            guard latitude.isFinite, (-90...90).contains(latitude) else {
                throw RuleViolation(field: "latitude", message: "Latitude must be between -90 and 90.")
            }
            guard longitude.isFinite, (-180...180).contains(longitude) else {
                throw RuleViolation(field: "longitude", message: "Longitude must be between -180 and 180.")
            }
            guard let radius = radius ?? classroomSize?.radius else {
                throw RuleViolation(field: "radius", message: "Give a radius in metres or a classroom size.")
            }
            guard radius.isFinite, SessionSettings.radiusRange.contains(radius) else {
                throw RuleViolation(field: "radius", message: "The radius must be 5 to 5000 metres.")
            }
            return Geofence(center: GeoPoint(latitude: latitude, longitude: longitude), radius: radius)
        default:
            throw RuleViolation(field: "latitude", message: "Give both latitude and longitude, or neither.")
        }
    }
}
