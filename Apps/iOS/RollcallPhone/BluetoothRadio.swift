import CoreBluetooth
import Foundation
import Observation
import RollcallApp

/// The phone's Bluetooth for `ProximityTracer`: advertises Rollcall's service, serves the current pseudo-ID to the
/// phones that connect and read it, and reads the pseudo-IDs of the Rollcall phones it finds while listening.
///
/// The pseudo-ID rides in a characteristic, not in the advertisement: a legacy advertisement holds 31 bytes, so 16
/// bytes of pseudo-ID do not fit beside a 128-bit service UUID, and iOS lets an app advertise only a local name and
/// service UUIDs (no service data, no manufacturer data). So every Rollcall phone advertises the same service, and a
/// listening phone connects, reads the one characteristic and disconnects.
///
/// In the background (with the `bluetooth-central` and `bluetooth-peripheral` modes) iOS keeps advertising, but moves
/// the service UUID to its "overflow area", which only other iPhones scanning for that UUID see, and in practice only
/// while their app is in the foreground; background scans are slowed and their discoveries coalesced; and the
/// tracer's clock stops while the app is suspended. So the proximity screen asks people to keep Rollcall open during
/// class, as seed 001's APRICOT did.
///
/// Both managers call back on the main queue, so every delegate method hops to the main actor with
/// `MainActor.assumeIsolated`, carrying only identifiers and values across.
@MainActor @Observable
final class BluetoothRadio: NSObject, Radio {
    /// Whether Bluetooth lets Rollcall broadcast and listen, for the screen.
    enum State: Equatable {
        /// Not started: Bluetooth starts when proximity first broadcasts or listens, so that iOS asks for permission
        /// then, and not at sign-in.
        case notStarted
        /// iOS is starting or resetting Bluetooth.
        case starting
        case ready
        /// Bluetooth is switched off (Control Center or Settings).
        case poweredOff
        /// The person has not allowed Rollcall to use Bluetooth (Settings, Rollcall).
        case unauthorized
        /// This device has no Bluetooth LE.
        case unsupported
    }

    /// Rollcall's service, advertised by every phone with proximity on; the same in every copy of the app.
    nonisolated static var serviceUUID: CBUUID { CBUUID(string: "8434CDA8-9641-49A3-B403-95974DEC75E7") }
    /// The service's one characteristic: the pseudo-ID broadcast now, 16 bytes, read-only.
    nonisolated static var characteristicUUID: CBUUID { CBUUID(string: "41B7184D-F968-4788-A29A-E3647A1D3E32") }
    /// A phone read less than this long ago is not read again: a pseudo-ID lasts five minutes, so one read a minute
    /// catches each, and a room of forty phones stays below one connection a second.
    static let rereadAfter: TimeInterval = 60
    /// Connections under way at once; each costs the other phone's battery as well as this one's.
    static let maxReads = 4
    /// A read not done by then is given up: CoreBluetooth's `connect` never times out by itself.
    static let readTimeout = Duration.seconds(10)

    /// Whether Bluetooth lets Rollcall broadcast and listen.
    private(set) var state = State.notStarted
    /// Whether iOS is advertising Rollcall's service now.
    private(set) var advertising = false
    /// Whether the phone is scanning for other Rollcall phones now.
    private(set) var scanning = false

    @ObservationIgnored var heard: (@MainActor (Sighting) -> Void)?

    /// One phone being read: its connection, the signal it was found with, and which attempt this is.
    private struct Read {
        var peripheral: CBPeripheral
        var signal: Int
        var attempt: Int
    }

    @ObservationIgnored private var central: CBCentralManager?
    @ObservationIgnored private var peripheralManager: CBPeripheralManager?
    /// The pseudo-ID's bytes served to readers, and when to stop serving them.
    @ObservationIgnored private var serving: (bytes: Data, until: Date)?
    /// The service was handed to iOS (added, or being added).
    @ObservationIgnored private var serviceAdded = false
    @ObservationIgnored private var wantsToListen = false
    @ObservationIgnored private var reads: [UUID: Read] = [:]
    /// When each phone (by CoreBluetooth's identifier for it) was last read, for the last minute only.
    @ObservationIgnored private var lastRead: [UUID: Date] = [:]
    @ObservationIgnored private var attempts = 0

    // MARK: Radio

    func advertise(_ id: String?) {
        guard let id, let bytes = Self.bytes(ofPseudoID: id) else {
            serving = nil
            withdraw()
            return
        }
        // Served for one window at most: while the app is suspended the tracer cannot rotate it, and one pseudo-ID
        // served for hours would let anyone nearby follow the phone through them.
        serving = (bytes, Date().addingTimeInterval(ProximityTracer.windowSeconds))
        publish()
    }

    func listen(_ on: Bool) {
        wantsToListen = on
        if on {
            scan()
        } else {
            stopScanning()
        }
    }

    // MARK: Broadcasting

    /// Puts the service on the air once Bluetooth is on; the pseudo-ID itself is handed out on each read.
    private func publish() {
        guard serving != nil else { return }
        let manager = peripheralManager ?? startPeripheralManager()
        guard manager.state == .poweredOn else { return }
        if !serviceAdded {
            // No value here: iOS would cache it and answer reads itself, and it could not change at rotation. Without
            // one, each read comes to `didReceiveRead`, which serves the pseudo-ID of the moment. Readable without
            // encryption, as an encrypted characteristic puts up a pairing prompt on both phones.
            let characteristic = CBMutableCharacteristic(
                type: Self.characteristicUUID, properties: [.read], value: nil, permissions: [.readable])
            let service = CBMutableService(type: Self.serviceUUID, primary: true)
            service.characteristics = [characteristic]
            serviceAdded = true
            manager.add(service)  // advertising starts once iOS has added it (`didAdd`)
        } else {
            startAdvertising()
        }
    }

    private func startAdvertising() {
        guard serving != nil, let peripheralManager, peripheralManager.state == .poweredOn,
            !peripheralManager.isAdvertising
        else { return }
        // No local name: the phone's name says more about whose it is than any pseudo-ID. iOS picks the address and
        // changes it on its own schedule, not at rotation; Rollcall never sees addresses, only pseudo-IDs.
        peripheralManager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [Self.serviceUUID]])
    }

    /// Stops advertising and removes the service: nothing of Rollcall stays on the air.
    private func withdraw() {
        advertising = false
        guard let peripheralManager else { return }
        if peripheralManager.state == .poweredOn {
            peripheralManager.stopAdvertising()
            peripheralManager.removeAllServices()
        }
        serviceAdded = false
    }

    /// The bytes to answer a read with, or `nil` when there is nothing (still) to serve.
    private func valueToServe(at now: Date) -> Data? {
        guard let serving else { return nil }
        guard now < serving.until else {
            // The tracer has not ticked for a whole window (the app is suspended): stop rather than serve a stale
            // pseudo-ID, which the server would not count anyway. The next tick advertises the new one.
            self.serving = nil
            withdraw()
            return nil
        }
        return serving.bytes
    }

    private func startPeripheralManager() -> CBPeripheralManager {
        // The main queue, so that callbacks run where the radio's state is (see `MainActor.assumeIsolated` below).
        // No power alert: the proximity screen says when Bluetooth is off.
        let manager = CBPeripheralManager(
            delegate: self, queue: .main, options: [CBPeripheralManagerOptionShowPowerAlertKey: false])
        peripheralManager = manager
        return manager
    }

    private func peripheralManagerChanged() {
        if peripheralManager?.state == .poweredOn {
            publish()
        } else {
            // Below "powered on" iOS stops advertising and drops the services: both are set up again when it returns.
            serviceAdded = false
            advertising = false
        }
        updateState()
    }

    private func didAddService(_ added: Bool) {
        if added {
            startAdvertising()
        } else {
            serviceAdded = false
        }
    }

    // MARK: Listening

    private func scan() {
        guard wantsToListen else { return }
        let manager = central ?? startCentral()
        guard manager.state == .poweredOn, !manager.isScanning else { return }
        // Duplicates, so that a phone passed over (reads enough under way) is found again within the minute. iOS
        // ignores the option in the background, where it reports each phone once per scan and late.
        manager.scanForPeripherals(
            withServices: [Self.serviceUUID], options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        scanning = true
    }

    private func stopScanning() {
        if let central, central.state == .poweredOn {
            central.stopScan()
        }
        scanning = false
        for id in Array(reads.keys) {
            end(id)
        }
    }

    private func startCentral() -> CBCentralManager {
        let manager = CBCentralManager(
            delegate: self, queue: .main, options: [CBCentralManagerOptionShowPowerAlertKey: false])
        central = manager
        return manager
    }

    private func centralChanged() {
        if central?.state == .poweredOn {
            scan()
        } else {
            // Connections do not survive Bluetooth going off, and no callback ends them.
            scanning = false
            reads.removeAll()
        }
        updateState()
    }

    /// A Rollcall phone in range: reads its pseudo-ID, unless it was read this last minute or enough reads are
    /// under way (it advertises again, and is found again).
    private func discovered(_ peripheral: CBPeripheral, signal: Int) {
        let now = Date()
        let id = peripheral.identifier
        lastRead = lastRead.filter { now.timeIntervalSince($0.value) < Self.rereadAfter }
        guard wantsToListen, reads[id] == nil, lastRead[id] == nil, reads.count < Self.maxReads,
            let central, central.state == .poweredOn
        else { return }
        attempts += 1
        let attempt = attempts
        // Counted from the attempt, not the answer: a phone that does not answer is not tried again at once.
        lastRead[id] = now
        reads[id] = Read(peripheral: peripheral, signal: signal, attempt: attempt)
        peripheral.delegate = self
        central.connect(peripheral, options: nil)
        Task { [weak self] in
            try? await Task.sleep(for: Self.readTimeout)
            if let self, self.reads[id]?.attempt == attempt {
                self.end(id)
            }
        }
    }

    private func connected(_ id: UUID) {
        reads[id]?.peripheral.discoverServices([Self.serviceUUID])
    }

    private func foundServices(_ id: UUID) {
        guard let peripheral = reads[id]?.peripheral,
            let service = peripheral.services?.first(where: { $0.uuid == Self.serviceUUID })
        else {
            end(id)
            return
        }
        peripheral.discoverCharacteristics([Self.characteristicUUID], for: service)
    }

    private func foundCharacteristics(_ id: UUID) {
        guard let peripheral = reads[id]?.peripheral,
            let characteristic = peripheral.services?.first(where: { $0.uuid == Self.serviceUUID })?
                .characteristics?.first(where: { $0.uuid == Self.characteristicUUID })
        else {
            end(id)
            return
        }
        peripheral.readValue(for: characteristic)
    }

    /// The characteristic's value arrived (or `nil`: it failed): a sighting, when it is a pseudo-ID's 16 bytes.
    private func received(_ value: Data?, from id: UUID) {
        guard let read = reads[id] else { return }
        if let value, value.count == 16 {
            heard?(Sighting(id: Self.hexDigits(of: value), signal: read.signal, at: Date()))
        }
        end(id)
    }

    /// Ends a read, done or not, and cancels its connection at once.
    private func end(_ id: UUID) {
        guard let read = reads.removeValue(forKey: id) else { return }
        if let central, central.state == .poweredOn {
            central.cancelPeripheralConnection(read.peripheral)
        }
    }

    /// The connection ended or never began: the read is over.
    private func lost(_ id: UUID) {
        reads.removeValue(forKey: id)
    }

    // MARK: State

    private func updateState() {
        let states = [central?.state, peripheralManager?.state].compactMap { $0 }
        state =
            if states.isEmpty {
                .notStarted
            } else if states.contains(.unauthorized) {
                .unauthorized
            } else if states.contains(.unsupported) {
                .unsupported
            } else if states.contains(.poweredOff) {
                .poweredOff
            } else if states.allSatisfy({ $0 == .poweredOn }) {
                .ready
            } else {
                .starting
            }
    }

    // MARK: Pseudo-IDs as bytes

    /// The 16 bytes of a pseudo-ID's 32 hexadecimal digits; `nil` for anything else.
    static func bytes(ofPseudoID id: String) -> Data? {
        let digits = Array(id.utf8)
        guard digits.count == 32 else { return nil }
        var bytes = Data(capacity: 16)
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// 32 lowercase hexadecimal digits, as the tracer and the server spell pseudo-IDs.
    static func hexDigits(of bytes: Data) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A peripheral handed from a CoreBluetooth callback to the main actor. Unchecked, and sound only because both
/// managers call back on the main queue: the peripheral never leaves the main thread.
private struct FoundPeripheral: @unchecked Sendable {
    let peripheral: CBPeripheral
}

extension BluetoothRadio: CBPeripheralManagerDelegate {
    nonisolated func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        MainActor.assumeIsolated { self.peripheralManagerChanged() }
    }

    nonisolated func peripheralManager(
        _ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?
    ) {
        let added = error == nil
        MainActor.assumeIsolated { self.didAddService(added) }
    }

    nonisolated func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        let started = error == nil
        MainActor.assumeIsolated { self.advertising = started && self.serving != nil }
    }

    nonisolated func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard request.characteristic.uuid == Self.characteristicUUID else {
            peripheral.respond(to: request, withResult: .attributeNotFound)
            return
        }
        let now = Date()
        guard let value = MainActor.assumeIsolated({ self.valueToServe(at: now) }) else {
            peripheral.respond(to: request, withResult: .readNotPermitted)
            return
        }
        // 16 bytes fit in any ATT read, so the offset is 0 unless a reader asks oddly.
        guard request.offset <= value.count else {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = value.subdata(in: request.offset..<value.count)
        peripheral.respond(to: request, withResult: .success)
    }
}

extension BluetoothRadio: CBCentralManagerDelegate {
    nonisolated func centralManagerDidUpdateState(_ central: CBCentralManager) {
        MainActor.assumeIsolated { self.centralChanged() }
    }

    nonisolated func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        let signal = RSSI.intValue
        // 127 is CoreBluetooth's "no reading": the phone advertises again within a second, with one.
        guard signal != 127, (advertisementData[CBAdvertisementDataIsConnectable] as? Bool) != false else { return }
        let found = FoundPeripheral(peripheral: peripheral)
        MainActor.assumeIsolated { self.discovered(found.peripheral, signal: signal) }
    }

    nonisolated func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        let id = peripheral.identifier
        MainActor.assumeIsolated { self.connected(id) }
    }

    nonisolated func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?
    ) {
        let id = peripheral.identifier
        MainActor.assumeIsolated { self.lost(id) }
    }

    nonisolated func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        let id = peripheral.identifier
        MainActor.assumeIsolated { self.lost(id) }
    }
}

extension BluetoothRadio: CBPeripheralDelegate {
    nonisolated func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        let id = peripheral.identifier
        let found = error == nil
        MainActor.assumeIsolated {
            if found {
                self.foundServices(id)
            } else {
                self.end(id)
            }
        }
    }

    nonisolated func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
    ) {
        let id = peripheral.identifier
        let found = error == nil
        MainActor.assumeIsolated {
            if found {
                self.foundCharacteristics(id)
            } else {
                self.end(id)
            }
        }
    }

    nonisolated func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        let id = peripheral.identifier
        let value = error == nil && characteristic.uuid == Self.characteristicUUID ? characteristic.value : nil
        MainActor.assumeIsolated { self.received(value, from: id) }
    }
}
