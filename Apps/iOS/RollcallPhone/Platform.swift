import AVFoundation
import AuthenticationServices
import Combine
import CoreLocation
import Network
import RollcallClient
import SwiftUI
import UIKit

/// This phone's id for check-ins: stable per install, as the server's one-phone-one-student rule needs.
enum DeviceID {
    static var current: String {
        (UIDevice.current.identifierForVendor ?? UUID()).uuidString
    }
}

/// Whether the phone has a network path, for sending queued check-ins when it returns.
final class NetworkWatch: ObservableObject {
    static let shared = NetworkWatch()
    @Published var isOnline = true
    private let monitor = NWPathMonitor()

    private init() {
        monitor.pathUpdateHandler = { [weak self] path in
            DispatchQueue.main.async { self?.isOnline = path.status == .satisfied }
        }
        monitor.start(queue: DispatchQueue(label: "rollcall.network"))
    }
}

/// One location reading from Core Location, with its accuracy.
enum PhoneLocation {
    @MainActor static func current() async throws -> Location? {
        let manager = CLLocationManager()
        if manager.authorizationStatus == .notDetermined { manager.requestWhenInUseAuthorization() }
        for try await update in CLLocationUpdate.liveUpdates() {
            if let location = update.location {
                return Location(
                    latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                    accuracy: location.horizontalAccuracy)
            }
        }
        return nil
    }
}

/// The platform's passkey prompt (Face ID, Touch ID) over a Rollcall challenge.
enum PasskeyPrompt {
    @Sendable static func answer(_ challenge: PasskeyChallenge) async throws -> AssertionCredential {
        let relyingParty =
            challenge.relyingPartyID
            ?? URL(string: Bundle.main.object(forInfoDictionaryKey: "RollcallServer") as! String)!.host!
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingParty)
        let request = provider.createCredentialAssertionRequest(challenge: Data(challenge.challengeBytes))
        request.userVerificationPreference = .required
        request.allowedCredentials = challenge.allowedCredentialIDs.compactMap { id in
            Data(base64URL: id).map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        }
        let credential = try await AuthorizationRun(request).perform()
        return AssertionCredential(
            id: credential.credentialID.base64URL,
            response: .init(
                clientDataJSON: credential.rawClientDataJSON.base64URL,
                authenticatorData: credential.rawAuthenticatorData.base64URL,
                signature: credential.signature.base64URL, userHandle: credential.userID.base64URL))
    }
}

/// Runs one authorization request and hands back its assertion.
final class AuthorizationRun: NSObject, ASAuthorizationControllerDelegate {
    private let controller: ASAuthorizationController
    private var continuation: CheckedContinuation<ASAuthorizationPlatformPublicKeyCredentialAssertion, any Error>?

    init(_ request: ASAuthorizationRequest) {
        controller = ASAuthorizationController(authorizationRequests: [request])
    }

    @MainActor func perform() async throws -> ASAuthorizationPlatformPublicKeyCredentialAssertion {
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            controller.delegate = self
            controller.performRequests()
        }
    }

    func authorizationController(
        controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
    ) {
        if let assertion = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion {
            continuation?.resume(returning: assertion)
        } else {
            continuation?.resume(throwing: ASAuthorizationError(.failed))
        }
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        continuation?.resume(throwing: error)
    }
}

/// The camera reading QR codes: hands each Rollcall link it sees to `found`.
struct QRScannerView: UIViewControllerRepresentable {
    let found: (String) -> Void

    func makeUIViewController(context: Context) -> ScannerController { ScannerController(found: found) }
    func updateUIViewController(_ controller: ScannerController, context: Context) {}

    final class ScannerController: UIViewController, AVCaptureMetadataOutputObjectsDelegate {
        let found: (String) -> Void
        private let session = AVCaptureSession()

        init(found: @escaping (String) -> Void) {
            self.found = found
            super.init(nibName: nil, bundle: nil)
        }

        required init?(coder: NSCoder) { nil }

        override func viewDidLoad() {
            super.viewDidLoad()
            guard let camera = AVCaptureDevice.default(for: .video),
                let input = try? AVCaptureDeviceInput(device: camera)
            else { return }
            session.addInput(input)
            let output = AVCaptureMetadataOutput()
            session.addOutput(output)
            output.setMetadataObjectsDelegate(self, queue: .main)
            output.metadataObjectTypes = [.qr]
            let preview = AVCaptureVideoPreviewLayer(session: session)
            preview.frame = view.layer.bounds
            preview.videoGravity = .resizeAspectFill
            view.layer.addSublayer(preview)
            DispatchQueue.global(qos: .userInitiated).async { self.session.startRunning() }
        }

        func metadataOutput(
            _ output: AVCaptureMetadataOutput, didOutput objects: [AVMetadataObject],
            from connection: AVCaptureConnection
        ) {
            guard let link = (objects.first as? AVMetadataMachineReadableCodeObject)?.stringValue,
                Rollcall.code(inScannedLink: link) != nil
            else { return }
            session.stopRunning()
            found(link)
        }
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
