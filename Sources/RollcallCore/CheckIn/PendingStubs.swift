// TEMPORARY: replaced by the real check-in rules; lets the server compile meanwhile.
import Foundation
public struct GeoPoint: Sendable, Hashable, Codable { public var latitude: Double; public var longitude: Double
    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude } }
public enum ClassroomSize: String, CaseIterable, Codable, Sendable { case small, medium, large, hall
    public var radius: Double { 30 } }
public struct Geofence: Sendable, Hashable, Codable { public var center: GeoPoint; public var radius: Double
    public init(center: GeoPoint, radius: Double) { self.center = center; self.radius = radius } }
public struct NetworkRange: Sendable, Hashable, Codable, CustomStringConvertible { public var description: String
    public init?(cidr: String) { description = cidr } }
public enum AttendanceStatus: String, CaseIterable, Codable, Sendable { case present, late, excused, absent }
public struct RotatingCode: Sendable { public static let allowedPeriods = 2...60; public static let allowedGrace = 0...5
    public static func makeSecret<G: RandomNumberGenerator>(using g: inout G) -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) } } }
