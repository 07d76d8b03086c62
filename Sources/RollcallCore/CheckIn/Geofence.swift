import Foundation

/// A point on Earth in degrees (WGS 84, as phones report it).
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether the numbers can be a place at all.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres (haversine on the mean Earth radius; well under 0.5 % from the ellipsoid).
    public func distance(to other: GeoPoint) -> Double {
        let φ1 = latitude * .pi / 180
        let φ2 = other.latitude * .pi / 180
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }
}

/// Where a phone says it is, and how sure it is (the radius, in metres, of its 68 % confidence circle).
public struct LocationReading: Sendable, Hashable, Codable {
    public var point: GeoPoint
    public var accuracy: Double

    public init(point: GeoPoint, accuracy: Double) {
        self.point = point
        self.accuracy = accuracy
    }
}

/// Room sizes a teacher picks instead of a radius, like the seeds' "classroom size".
public enum ClassroomSize: String, CaseIterable, Codable, Sendable {
    case small, medium, large, hall

    /// Metres from the teacher's spot to the far corner, rounded up: a seminar room, a classroom, a large
    /// classroom or lab, a lecture hall.
    public var radius: Double {
        switch self {
        case .small: 15
        case .medium: 30
        case .large: 60
        case .hall: 120
        }
    }
}

/// The circle students must be in: the teacher's point and a radius, widened by the usual indoor GPS drift.
public struct Geofence: Sendable, Hashable, Codable {
    public var center: GeoPoint
    public var radius: Double

    /// Published indoor drift of phone positioning is about 12 m; a student at the back wall is not refused for it.
    public static let gpsAllowance = 12.0
    /// A reading less precise than this cannot place anyone in a room.
    public static let worstUsableAccuracy = 100.0

    public init(center: GeoPoint, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// The distance up to which a reading counts as inside.
    public var reach: Double { radius + Self.gpsAllowance }

    /// What a reading says about being inside.
    public enum Check: Equatable, Sendable {
        case inside(distance: Double)
        /// Certainly outside: even the near edge of the accuracy circle is beyond reach.
        case outside(distance: Double)
        case noReading
        /// Too imprecise to decide: worse than the usable limit, or outside by less than its own uncertainty.
        case tooInaccurate(accuracy: Double)
    }

    /// Inside when the reported point is within reach; outside only when the whole accuracy circle is beyond it;
    /// anything between is refused as undecidable rather than guessed.
    public func check(_ reading: LocationReading?) -> Check {
        guard let reading else { return .noReading }
        guard reading.point.isValid else { return .noReading }
        guard reading.accuracy.isFinite, reading.accuracy >= 0, reading.accuracy <= Self.worstUsableAccuracy else {
            return .tooInaccurate(accuracy: reading.accuracy)
        }
        let distance = center.distance(to: reading.point)
        if distance <= reach { return .inside(distance: distance) }
        if distance - reading.accuracy > reach { return .outside(distance: distance) }
        return .tooInaccurate(accuracy: reading.accuracy)
    }
}
