import Foundation

/// A pseudo-ID the radio heard: its value (32 hexadecimal digits), the signal's strength in dBm, and when.
public struct Sighting: Sendable, Equatable {
    public var id: String
    public var signal: Int
    public var at: Date

    public init(id: String, signal: Int, at: Date) {
        self.id = id
        self.signal = signal
        self.at = at
    }
}

/// The phone's Bluetooth as the tracer uses it: broadcast one pseudo-ID, listen or not, and tell what it heard.
///
/// On iPhone, `Apps/iOS` implements it with CoreBluetooth; on Linux, `SimulatedAir` hands out radios that hear each
/// other in simulated places, for tests and demonstrations.
@MainActor
public protocol Radio: AnyObject {
    /// Broadcasts `id` until told otherwise; `nil` stops broadcasting.
    func advertise(_ id: String?)
    /// Turns listening on or off; sightings arrive only while it is on.
    func listen(_ on: Bool)
    /// Where the radio reports each pseudo-ID it hears.
    var heard: (@MainActor (Sighting) -> Void)? { get set }
}

/// Simulated places where simulated radios hear each other: every listening radio hears every other radio
/// broadcasting in the same place, once each time the air is stepped. A radio in no place is switched off.
@MainActor
public final class SimulatedAir {
    /// A radio in the simulated air.
    public final class SimulatedRadio: Radio {
        public var heard: (@MainActor (Sighting) -> Void)?
        /// Where the phone is; `nil` when it is switched off or out of everyone's range.
        public var place: String?
        /// The signal others receive from this phone, in dBm.
        public var signal: Int
        public private(set) var advertised: String?
        public private(set) var listening = false

        init(place: String?, signal: Int) {
            self.place = place
            self.signal = signal
        }

        public func advertise(_ id: String?) { advertised = id }
        public func listen(_ on: Bool) { listening = on }
    }

    public private(set) var radios: [SimulatedRadio] = []

    public init() {}

    /// A new radio, at `place`.
    public func radio(at place: String? = nil, signal: Int = -65) -> SimulatedRadio {
        let radio = SimulatedRadio(place: place, signal: signal)
        radios.append(radio)
        return radio
    }

    /// One moment of the air: each listening radio hears every other broadcasting in its place.
    public func step(at now: Date) {
        var byPlace: [String: [SimulatedRadio]] = [:]
        for radio in radios {
            if let place = radio.place { byPlace[place, default: []].append(radio) }
        }
        for (_, here) in byPlace {
            for listener in here where listener.listening {
                for speaker in here where speaker !== listener {
                    if let id = speaker.advertised {
                        listener.heard?(Sighting(id: id, signal: speaker.signal, at: now))
                    }
                }
            }
        }
    }
}
