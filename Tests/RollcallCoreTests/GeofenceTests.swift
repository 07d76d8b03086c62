import Foundation
import Testing

@testable import RollcallCore

@Suite("Geofence", .timeLimit(.minutes(5)))
struct GeofenceTests {
    static let metresPerDegree = GeoPoint.earthRadius * .pi / 180
    let room = Geofence(center: GeoPoint(latitude: 52.0, longitude: 4.0), radius: 30)

    /// A reading `metres` due north of the room's centre: along a meridian, metres and degrees are proportional.
    func north(_ metres: Double, accuracy: Double = 5) -> LocationReading {
        LocationReading(
            point: GeoPoint(latitude: 52.0 + metres / Self.metresPerDegree, longitude: 4.0), accuracy: accuracy)
    }

    /// The central angle by the spherical law of cosines on unit vectors: a second formula to check haversine by.
    func centralAngle(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        func vector(_ p: GeoPoint) -> (Double, Double, Double) {
            let φ = p.latitude * .pi / 180
            let λ = p.longitude * .pi / 180
            return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
        }
        let (u, v) = (vector(a), vector(b))
        return acos(min(1, max(-1, u.0 * v.0 + u.1 * v.1 + u.2 * v.2)))
    }

    // MARK: Distance

    @Test func distances_match_closed_forms_on_the_mean_sphere() {
        let origin = GeoPoint(latitude: 0, longitude: 0)
        #expect(origin.distance(to: origin) == 0)
        #expect(abs(origin.distance(to: GeoPoint(latitude: 1, longitude: 0)) - 111_195.08) < 0.01)
        #expect(abs(origin.distance(to: GeoPoint(latitude: 0, longitude: 90)) - .pi / 2 * GeoPoint.earthRadius) < 1e-6)
        #expect(abs(origin.distance(to: GeoPoint(latitude: 0, longitude: 180)) - .pi * GeoPoint.earthRadius) < 1e-6)
        let poles = GeoPoint(latitude: 90, longitude: 0).distance(to: GeoPoint(latitude: -90, longitude: 0))
        #expect(abs(poles - .pi * GeoPoint.earthRadius) < 1e-6)
    }

    @Test func lax_to_jfk_matches_the_aviation_formulary() {
        // Ed Williams' Aviation Formulary works this example on the sphere: 0.623585 radians (2144 nm).
        let lax = GeoPoint(latitude: 33 + 57.0 / 60, longitude: -(118 + 24.0 / 60))
        let jfk = GeoPoint(latitude: 40 + 38.0 / 60, longitude: -(73 + 47.0 / 60))
        #expect(abs(lax.distance(to: jfk) / GeoPoint.earthRadius - 0.623585) < 1e-6)
        #expect(abs(lax.distance(to: jfk) - 3_972_863) < 1)
        #expect(abs(lax.distance(to: jfk) - jfk.distance(to: lax)) < 1e-6)
    }

    @Test func distance_across_the_antimeridian_is_short() {
        let east = GeoPoint(latitude: 0, longitude: 179.9995)
        let west = GeoPoint(latitude: 0, longitude: -179.9995)
        #expect(abs(east.distance(to: west) - 111.195) < 0.001, "0.001° of the equator")
        let fiji = GeoPoint(latitude: -17.8, longitude: 180)
        let sameSpot = GeoPoint(latitude: -17.8, longitude: -180)
        #expect(fiji.distance(to: sameSpot) < 1e-6, "180° and −180° are one meridian")
    }

    @Test func distance_near_the_poles_ignores_meaningless_longitude() {
        #expect(GeoPoint(latitude: 90, longitude: 0).distance(to: GeoPoint(latitude: 90, longitude: 120)) < 1e-6)
        #expect(GeoPoint(latitude: -90, longitude: 45).distance(to: GeoPoint(latitude: -90, longitude: -135)) < 1e-6)
        let across = GeoPoint(latitude: 89.999, longitude: 0).distance(to: GeoPoint(latitude: 89.999, longitude: 180))
        #expect(abs(across - 222.390) < 0.001, "over the pole: 0.002° of a meridian")
    }

    @Test func haversine_agrees_with_the_law_of_cosines_everywhere() {
        var generator = SeededRandom(seed: 21)
        for _ in 0..<500 {
            let a = GeoPoint(
                latitude: .random(in: -90...90, using: &generator),
                longitude: .random(in: -180...180, using: &generator))
            let b = GeoPoint(
                latitude: .random(in: -90...90, using: &generator),
                longitude: .random(in: -180...180, using: &generator))
            let expected = centralAngle(a, b) * GeoPoint.earthRadius
            #expect(abs(a.distance(to: b) - expected) < 0.5, "\(a) → \(b)")
            #expect(a.distance(to: b) == b.distance(to: a))
        }
    }

    // MARK: Points and readings

    @Test(arguments: [(0.0, 0.0), (90, 180), (-90, -180), (52.37, 4.89), (-33.86, 151.21)])
    func places_on_earth_are_valid(latitude: Double, longitude: Double) {
        #expect(GeoPoint(latitude: latitude, longitude: longitude).isValid)
        #expect(GeoPoint(validLatitude: latitude, longitude: longitude) != nil)
    }

    @Test(arguments: [
        (90.000001, 0.0), (-90.5, 0), (0, 180.000001), (0, -181), (.nan, 0), (0, .nan), (.infinity, 0),
        (0, -.infinity), (1000, 1000),
    ])
    func impossible_places_are_invalid(latitude: Double, longitude: Double) {
        #expect(!GeoPoint(latitude: latitude, longitude: longitude).isValid)
        #expect(GeoPoint(validLatitude: latitude, longitude: longitude) == nil)
    }

    @Test func points_decode_only_when_valid_and_keep_their_json_shape() throws {
        let point = GeoPoint(latitude: 52.5, longitude: -4.25)
        let json = try JSONEncoder().encode(point)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Double]
        #expect(object == ["latitude": 52.5, "longitude": -4.25])
        #expect(try JSONDecoder().decode(GeoPoint.self, from: json) == point)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"latitude": 95, "longitude": 0}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"latitude": 5}"#.utf8))
        }
        let fence = Geofence(center: point, radius: 30)
        let decoded = try JSONDecoder().decode(Geofence.self, from: try JSONEncoder().encode(fence))
        #expect(decoded == fence)
        let fenceObject = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(fence)) as? [String: Any]
        #expect(Set(fenceObject?.keys.map { $0 } ?? []) == ["center", "radius"])
        let reading = LocationReading(point: point, accuracy: 8)
        #expect(try JSONDecoder().decode(LocationReading.self, from: try JSONEncoder().encode(reading)) == reading)
    }

    // MARK: Classroom sizes

    @Test func classroom_sizes_double_from_a_seminar_room_to_a_hall() {
        #expect(ClassroomSize.allCases == [.small, .medium, .large, .hall])
        #expect(ClassroomSize.allCases.map(\.radius) == [15, 30, 60, 120])
        #expect(ClassroomSize.allCases.map(\.rawValue) == ["small", "medium", "large", "hall"])
        #expect(Geofence(center: room.center, size: .hall) == Geofence(center: room.center, radius: 120))
        #expect(Geofence(center: room.center, size: .small).reach == 27)
    }

    // MARK: The rule

    @Test func the_reach_is_the_radius_plus_the_gps_allowance() {
        #expect(Geofence.gpsAllowance == 12)
        #expect(room.reach == 42)
    }

    @Test func exactly_at_reach_is_inside_and_a_hair_beyond_with_certainty_is_outside() {
        #expect(room.check(distance: 42, accuracy: 0) == .inside(distance: 42))
        #expect(room.check(distance: 42, accuracy: 100) == .inside(distance: 42))
        #expect(room.check(distance: 42.nextUp, accuracy: 0) == .outside(distance: 42.nextUp))
        #expect(room.check(distance: 0, accuracy: 3) == .inside(distance: 0))
    }

    @Test func outside_needs_the_whole_accuracy_circle_beyond_reach() {
        #expect(room.check(distance: 62, accuracy: 20) == .tooInaccurate(accuracy: 20), "nearest edge exactly at reach")
        #expect(room.check(distance: 62.001, accuracy: 20) == .outside(distance: 62.001))
        #expect(room.check(distance: 50, accuracy: 8.5) == .tooInaccurate(accuracy: 8.5), "circle reaches in to 41.5")
        #expect(room.check(distance: 50, accuracy: 7.5) == .outside(distance: 50))
        #expect(room.check(distance: 5000, accuracy: 100) == .outside(distance: 5000))
    }

    @Test func accuracy_limits_are_inclusive_at_100_m() {
        #expect(Geofence.worstUsableAccuracy == 100)
        #expect(room.check(distance: 10, accuracy: 100) == .inside(distance: 10))
        #expect(room.check(distance: 10, accuracy: 100.nextUp) == .tooInaccurate(accuracy: 100.nextUp))
        #expect(room.check(distance: 10, accuracy: 1500) == .tooInaccurate(accuracy: 1500))
        #expect(room.check(distance: 5000, accuracy: 1500) == .tooInaccurate(accuracy: 1500), "not guessed outside")
        #expect(room.check(distance: 10, accuracy: 0) == .inside(distance: 10))
        #expect(room.check(distance: 10, accuracy: -1) == .tooInaccurate(accuracy: -1))
        #expect(room.check(distance: 10, accuracy: .infinity) == .tooInaccurate(accuracy: .infinity))
        guard case .tooInaccurate = room.check(distance: 10, accuracy: .nan) else {
            Issue.record("NaN accuracy cannot be trusted")
            return
        }
    }

    @Test func real_readings_follow_the_same_rule() {
        guard case .inside(let distance) = room.check(north(41.99)) else {
            Issue.record("41.99 m is inside a 30 m room with a 12 m allowance")
            return
        }
        #expect(abs(distance - 41.99) < 1e-6)
        guard case .outside(let far) = room.check(north(84, accuracy: 20)) else {
            Issue.record("84 m with a 20 m circle is certainly outside")
            return
        }
        #expect(Int(far.rounded()) == 84)
        #expect(room.check(north(60, accuracy: 20)) == .tooInaccurate(accuracy: 20), "could be at 40 m")
        #expect(
            room.check(north(42.01, accuracy: 0)) == .outside(distance: room.center.distance(to: north(42.01).point)))
    }

    @Test func no_reading_or_an_impossible_point_is_no_reading() {
        #expect(room.check(nil) == .noReading)
        #expect(room.check(LocationReading(point: GeoPoint(latitude: 95, longitude: 0), accuracy: 5)) == .noReading)
        #expect(room.check(LocationReading(point: GeoPoint(latitude: .nan, longitude: 4), accuracy: 5)) == .noReading)
    }

    @Test func a_fence_across_the_antimeridian_works() {
        let island = Geofence(center: GeoPoint(latitude: -16.5, longitude: 179.9999), radius: 15)
        let across = LocationReading(point: GeoPoint(latitude: -16.5, longitude: -179.9999), accuracy: 5)
        guard case .inside(let distance) = island.check(across) else {
            Issue.record("21 m across the antimeridian is inside a 27 m reach")
            return
        }
        #expect(abs(distance - 21.32) < 0.01)
    }

    @Test func inside_and_outside_never_overlap_property() {
        var generator = SeededRandom(seed: 33)
        for _ in 0..<1000 {
            let radius = Double.random(in: 5...500, using: &generator)
            let fence = Geofence(center: room.center, radius: radius)
            let distance = Double.random(in: 0...(radius * 3), using: &generator)
            let accuracy = Double.random(in: 0...120, using: &generator)
            switch fence.check(distance: distance, accuracy: accuracy) {
            case .inside: #expect(distance <= fence.reach && accuracy <= 100)
            case .outside: #expect(distance - accuracy > fence.reach && accuracy <= 100)
            case .tooInaccurate:
                #expect(accuracy > 100 || (distance > fence.reach && distance - accuracy <= fence.reach))
            case .noReading: Issue.record("a distance is a reading")
            }
        }
    }
}
