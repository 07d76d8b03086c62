import Foundation
import OpenAPIRuntime
import RollcallProtocol

/// Whether the person's proximity is on, how far their pseudo-IDs reach, their uploads and the health officers'
/// requests waiting for an upload.
public typealias ProximityStanding = Components.Schemas.ProximityStanding
/// One upload as the server counted it.
public typealias ProximityUpload = Components.Schemas.ProximityUpload
/// A health officer's request that the person upload what their phone heard.
public typealias ProximityRequest = Components.Schemas.ProximityRequest

/// A pseudo-ID to broadcast in one five-minute window.
public struct PseudoID: Sendable, Equatable, Hashable, Codable {
    /// 32 lowercase hexadecimal digits (16 random bytes).
    public var id: String
    public var windowStart: Date

    public init(id: String, windowStart: Date) {
        self.id = id
        self.windowStart = windowStart
    }
}

/// What a phone heard of one pseudo-ID: when first and last, and the strongest signal (dBm).
public typealias Encounter = Proximity.Encounter

extension Rollcall {
    /// The person's proximity as the server keeps it.
    public func proximity() async throws -> ProximityStanding {
        try await perform { try await api.getMyProximity().ok.body.json.proximity }
    }

    /// Turns proximity on, or off: off makes the server forget the person's pseudo-IDs and uploads at once.
    public func setProximity(on: Bool) async throws -> ProximityStanding {
        try await perform { try await api.setMyProximity(body: .json(.init(on: on))).ok.body.json.proximity }
    }

    /// Fresh pseudo-IDs from the current window for `days` (1 to 7); those issued before for windows still to come
    /// stop counting.
    public func proximityIDs(days: Int = 3) async throws -> [PseudoID] {
        let answer = try await perform {
            try await api.issueProximityIDs(body: .json(.init(days: days))).created.body.json
        }
        return answer.ids.map { PseudoID(id: $0.id, windowStart: $0.windowStart) }
    }

    /// Uploads encounters the person chose to share, answering a health officer's request when `requestID` names one.
    public func uploadEncounters(_ encounters: [Encounter], requestID: Int64? = nil) async throws -> ProximityUpload {
        let body = Operations.UploadProximityEncounters.Input.Body.JsonPayload(
            requestId: requestID,
            encounters: encounters.map {
                .init(heard: $0.heard, firstSeen: $0.firstSeen, lastSeen: $0.lastSeen, signal: $0.signal)
            })
        return try await perform { try await api.uploadProximityEncounters(body: .json(body)).created.body.json.upload }
    }
}
