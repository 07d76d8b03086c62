import Foundation
import Testing

@testable import RollcallCore

@Suite("Geofence")
struct GeofenceTests {
    let room = Geofence(center: GeoPoint(latitude: 52.0, longitude: 4.0), radius: 30)

    /// A point `metres` north of the room's centre (one degree of latitude is 111,195 m on the mean sphere).
    func north(_ metres: Double, accuracy: Double = 5) -> LocationReading {
        LocationReading(
            point: GeoPoint(latitude: 52.0 + metres / (GeoPoint.earthRadius * .pi / 180), longitude: 4.0),
            accuracy: accuracy
        )
    }

    @Test func known_distances() {
        let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
        let london = GeoPoint(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.distance(to: london) - 343_900) < 1_000)
        #expect(GeoPoint(latitude: 0, longitude: 0).distance(to: GeoPoint(latitude: 0, longitude: 0)) == 0)
        let acrossAntimeridian = GeoPoint(latitude: 0, longitude: 179.9995).distance(
            to: GeoPoint(latitude: 0, longitude: -179.9995)
        )
        #expect(abs(acrossAntimeridian - 111.2) < 0.5)
        let pole = GeoPoint(latitude: 90, longitude: 0).distance(to: GeoPoint(latitude: 90, longitude: 120))
        #expect(pole < 0.001)
        let halfWay = GeoPoint(latitude: 0, longitude: 0).distance(to: GeoPoint(latitude: 0, longitude: 180))
        #expect(abs(halfWay - .pi * GeoPoint.earthRadius) < 1)
    }

    @Test func the_reach_is_the_radius_plus_the_gps_allowance() {
        #expect(room.reach == 42)
        if case .inside(let distance) = room.check(north(41.99)) { #expect(abs(distance - 41.99) < 0.01) } else { _ = Issue.record("41.99 m is inside a 30 m room with 12 m allowance") }
        #expect(room.check(north(0)) == .inside(distance: 0))
        guard case .inside = room.check(north(42 - 1e-6)) else { _ = Issue.record("exactly at reach is inside"); return }
    }

    @Test func outside_only_when_the_whole_accuracy_circle_is_beyond_reach() {
        guard case .outside(let distance) = room.check(north(84, accuracy: 20)) else {
            _ = Issue.record("84 m with 20 m accuracy is outside"); return
        }
        #expect(Int(distance.rounded()) == 84)
        #expect(room.check(north(60, accuracy: 20)) == .tooInaccurate(accuracy: 20), "could be at 40 m: undecidable")
        guard case .outside = room.check(north(62.01, accuracy: 20)) else { _ = Issue.record("62.01 − 20 > 42"); return }
    }

    @Test func readings_too_imprecise_or_absent_are_refused_not_guessed() {
        #expect(room.check(nil) == .noReading)
        #expect(room.check(north(5, accuracy: 100.01)) == .tooInaccurate(accuracy: 100.01))
        guard case .inside = room.check(north(5, accuracy: 100)) else { _ = Issue.record("100 m accuracy is usable"); return }
        #expect(room.check(north(5, accuracy: -1)) == .tooInaccurate(accuracy: -1))
        #expect(room.check(north(5, accuracy: .nan)).isTooInaccurate)
        let nowhere = LocationReading(point: GeoPoint(latitude: 95, longitude: 0), accuracy: 5)
        #expect(room.check(nowhere) == .noReading)
    }

    @Test func classroom_sizes_grow() {
        let radii = ClassroomSize.allCases.map(\.radius)
        #expect(radii == radii.sorted())
        #expect(ClassroomSize.allCases.count == 4)
    }
}

extension Geofence.Check {
    var isTooInaccurate: Bool {
        if case .tooInaccurate = self { return true }
        return false
    }
}

@Suite("Network ranges")
struct NetworkRangeTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"), ("10.1.2.3/8", "10.0.0.0/8"), ("192.168.1.7", "192.168.1.7/32"),
        ("0.0.0.0/0", "0.0.0.0/0"), ("2001:db8::/32", "2001:db8::/32"), ("2001:DB8:0:0:1::1/128", "2001:db8::1:0:0:1/128"),
        ("::1", "::1/128"), ("fe80::1%eth0/64", "fe80::/64"), ("::ffff:10.0.0.1/128", "::ffff:a00:1/128"),
    ])
    func valid_ranges_parse_to_canonical_text(text: String, canonical: String) throws {
        #expect(try #require(NetworkRange(cidr: text)).description == canonical)
    }

    @Test(arguments: [
        "", "campus", "10.0.0.0/33", "10.0.0/8", "10.0.0.256/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8",
        "010.0.0.1", "1:2:3:4:5:6:7:8:9", "2001:db8::/129", "2001:::1", "::g", "1.2.3.4.5", "10.0.0.0/+8",
    ])
    func garbage_is_refused(text: String) {
        #expect(NetworkRange(cidr: text) == nil)
    }

    @Test func containment() throws {
        let campus = try #require(NetworkRange(cidr: "10.20.0.0/16"))
        #expect(campus.contains("10.20.255.1"))
        #expect(!campus.contains("10.21.0.1"))
        #expect(campus.contains("::ffff:10.20.1.1"), "IPv4-mapped IPv6")
        #expect(!campus.contains("2001:db8::1"))
        #expect(!campus.contains("not an address"))
        let v6 = try #require(NetworkRange(cidr: "2001:db8:abcd::/48"))
        #expect(v6.contains("2001:db8:abcd:1::5"))
        #expect(v6.contains("[2001:db8:abcd::1]"))
        #expect(!v6.contains("2001:db8:abce::1"))
        #expect(!v6.contains("10.0.0.1"))
        let odd = try #require(NetworkRange(cidr: "192.168.1.128/25"))
        #expect(odd.contains("192.168.1.200") && !odd.contains("192.168.1.127"))
        #expect(try #require(NetworkRange(cidr: "0.0.0.0/0")).contains("8.8.8.8"))
    }

    @Test func ranges_travel_as_cidr_text() throws {
        let ranges = [NetworkRange(cidr: "10.0.0.0/8")!, NetworkRange(cidr: "2001:db8::/32")!]
        let json = try JSONEncoder().encode(ranges)
        #expect(String(decoding: json, as: UTF8.self) == #"["10.0.0.0\/8","2001:db8::\/32"]"#)
        #expect(try JSONDecoder().decode([NetworkRange].self, from: json) == ranges)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([NetworkRange].self, from: Data(#"["x"]"#.utf8)) }
    }
}
