import Foundation

/// A point on Earth in degrees, WGS 84 as phones report it.
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    /// The mean Earth radius (IUGG R₁), in metres: the sphere that best fits the ellipsoid on average.
    public static let earthRadius = 6_371_008.8
    public static let latitudes = -90.0...90.0
    public static let longitudes = -180.0...180.0

    /// Takes the numbers as given; check `isValid` (or decode, which checks) before trusting them.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A point only when the numbers can be a place: finite, latitude in −90…90 and longitude in −180…180.
    public init?(validLatitude latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude)
        guard isValid else { return nil }
    }

    /// Whether the numbers can be a place at all.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && Self.latitudes.contains(latitude)
            && Self.longitudes.contains(longitude)
    }

    /// Decoding refuses impossible places, so a stored geofence or a client's reading is valid once decoded.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude)
        )
        guard isValid else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "(\(latitude), \(longitude)) is not on Earth")
            )
        }
    }

    /// Great-circle distance in metres, by the haversine formula on the mean Earth radius. Against the WGS 84
    /// ellipsoid it is off by at most about 0.5 %, under a metre across a lecture hall. Haversine stays accurate
    /// for the short distances a geofence cares about, and longitudes need no wrapping: the sine squares make
    /// 179.9° and −179.9° neighbours.
    public func distance(to other: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let φ1 = latitude * radians
        let φ2 = other.latitude * radians
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude) * radians
        let sinΔφ = sin(Δφ / 2)
        let sinΔλ = sin(Δλ / 2)
        let a = sinΔφ * sinΔφ + cos(φ1) * cos(φ2) * sinΔλ * sinΔλ
        // Rounding can push `a` a hair past 1 for antipodal points, where asin would give NaN.
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }
}

/// Where a phone says it is, and how sure it is.
public struct LocationReading: Sendable, Hashable, Codable {
    public var point: GeoPoint
    /// Radius in metres of the phone's confidence circle (68 % on iOS, Android and browsers).
    public var accuracy: Double

    public init(point: GeoPoint, accuracy: Double) {
        self.point = point
        self.accuracy = accuracy
    }
}

/// Room sizes a teacher picks instead of typing a radius.
///
/// The radius is measured from where the teacher stands, usually the front, so it is roughly the room's diagonal,
/// rounded up: a seminar room (about 10 × 10 m), a classroom of up to 60 seats (up to 20 × 20 m), a large
/// classroom or lab (up to 40 × 40 m), a lecture hall with tiers and side aisles (up to 80 × 80 m). Each size
/// doubles the last, so the presets stay distinct; the GPS allowance is added on top.
public enum ClassroomSize: String, CaseIterable, Codable, Sendable {
    case small, medium, large, hall

    /// Metres from the teacher's spot to the farthest seat.
    public var radius: Double {
        switch self {
        case .small: 15
        case .medium: 30
        case .large: 60
        case .hall: 120
        }
    }
}

/// What a location reading says about being in the room.
public enum GeofenceCheck: Equatable, Sendable {
    /// The reported point is within reach; `distance` is from the teacher's point, in metres.
    case inside(distance: Double)
    /// Certainly outside: even the nearest edge of the accuracy circle is beyond reach.
    case outside(distance: Double)
    /// No reading, or one whose point is not a place on Earth.
    case noReading
    /// Too imprecise to decide: worse than `worstUsableAccuracy`, not a sensible number, or the point is beyond reach
    /// while its accuracy circle still reaches in.
    case tooInaccurate(accuracy: Double)
}

/// The circle students must be in: the teacher's point and a radius, widened by the usual indoor GPS drift.
public struct Geofence: Sendable, Hashable, Codable {
    public var center: GeoPoint
    public var radius: Double

    /// Published indoor drift of phone positioning is about 12 m, so a student at the back wall is not refused for it.
    public static let gpsAllowance = 12.0
    /// A reading less precise than this cannot place anyone in a room: phones report hundreds of metres or more
    /// when precise location is off or only cell towers are heard.
    public static let worstUsableAccuracy = 100.0

    public init(center: GeoPoint, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// A geofence sized for a preset room.
    public init(center: GeoPoint, size: ClassroomSize) {
        self.init(center: center, radius: size.radius)
    }

    /// The distance from the centre up to which a reading counts as inside: radius plus GPS allowance.
    public var reach: Double { radius + Self.gpsAllowance }

    /// Decides a reading:
    /// - no reading, or an impossible point: `noReading`;
    /// - accuracy not finite, negative, or over `worstUsableAccuracy` (100 m): `tooInaccurate`;
    /// - distance ≤ reach: `inside`, on the phone's best estimate (the allowance is the margin for drift; refusing
    ///   a student whose point is in the room because the phone is modest about its precision would fail the honest);
    /// - distance − accuracy > reach: `outside`, certain because even the nearest edge of the circle is beyond reach;
    /// - otherwise the point is beyond reach but the circle straddles the boundary: `tooInaccurate`, refused rather
    ///   than guessed, so the student retries with a better fix instead of being told they are away.
    public func check(_ reading: LocationReading?) -> GeofenceCheck {
        guard let reading, reading.point.isValid else { return .noReading }
        return check(distance: center.distance(to: reading.point), accuracy: reading.accuracy)
    }

    /// The same rule from a distance already measured, so the boundaries can be checked exactly.
    public func check(distance: Double, accuracy: Double) -> GeofenceCheck {
        guard accuracy.isFinite, accuracy >= 0, accuracy <= Self.worstUsableAccuracy else {
            return .tooInaccurate(accuracy: accuracy)
        }
        if distance <= reach { return .inside(distance: distance) }
        if distance - accuracy > reach { return .outside(distance: distance) }
        return .tooInaccurate(accuracy: accuracy)
    }
}
