import RollcallApp
import RollcallClient
import SwiftUI
import UIKit

/// Nearby phones: on or off, what the phone keeps and for how long, where it stands now, the health officers'
/// requests, and the uploads the person agrees to.
struct ProximityView: View {
    let tracer: ProximityTracer
    let radio: BluetoothRadio
    /// The switch as shown. It follows `tracer.isOn`; moving it asks the tracer (and, to turn off, the person first).
    @State private var on = false
    @State private var confirmingOff = false
    @State private var busy = false

    var body: some View {
        List {
            Section {
                Toggle("Nearby phones", isOn: $on)
                    .disabled(busy)
                    .accessibilityHint(toggleHint)
            } footer: {
                Text(
                    "Keep Rollcall open during class. In the background iOS hides the broadcast from most phones and listens rarely, and Rollcall stops handing out its pseudo-ID once it is due to change."
                )
            }
            if on {
                today
            }
            kept
            if on {
                requests
            }
            if let problem = tracer.problem {
                Section { Text(problem.message).foregroundStyle(.red) }
            }
            if let storageProblem = tracer.storageProblem {
                Section { Text(storageProblem).foregroundStyle(.red) }
            }
        }
        .navigationTitle("Nearby phones")
        .onAppear { on = tracer.isOn }
        .onChange(of: tracer.isOn) { _, isOn in
            // Turned off elsewhere (another phone, the web) and found by `refresh()`.
            if !busy { on = isOn }
        }
        .onChange(of: on) { _, wanted in
            guard !busy, wanted != tracer.isOn else { return }
            if wanted {
                busy = true
                Task { await turnOn() }
            } else {
                confirmingOff = true
            }
        }
        .onChange(of: confirmingOff) { _, showing in
            // Dismissed without turning off: the switch goes back.
            if !showing && !busy { on = tracer.isOn }
        }
        .confirmationDialog("Turn off nearby phones?", isPresented: $confirmingOff, titleVisibility: .visible) {
            Button("Turn off and forget", role: .destructive) {
                busy = true
                Task { await turnOff() }
            }
            Button("Keep on", role: .cancel) {}
        } message: {
            Text(
                "This phone forgets the \(tracer.encounterCount) encounters it kept, and Rollcall forgets your pseudo-IDs, so that what other phones heard of yours can no longer be read, and anything you uploaded. Both happen at once and cannot be undone."
            )
        }
        .task { try? await tracer.refresh() }
        .refreshable { try? await tracer.refresh() }
    }

    private var toggleHint: String {
        on
            ? "Turning off makes this phone and Rollcall forget everything at once."
            : "Broadcasts a pseudo-ID that changes every 5 minutes and notes the Rollcall phones near yours."
    }

    /// Where proximity stands now: Bluetooth, the broadcast and the listening, what is kept.
    private var today: some View {
        Section("Now") {
            switch radio.state {
            case .poweredOff:
                Label(
                    "Bluetooth is off: turn it on in Control Center or Settings.",
                    systemImage: "exclamationmark.triangle")
            case .unauthorized:
                Label("Rollcall may not use Bluetooth.", systemImage: "exclamationmark.triangle")
                if let settings = URL(string: UIApplication.openSettingsURLString) {
                    Link("Allow Bluetooth in Settings", destination: settings)
                }
            case .unsupported:
                Label("This device has no Bluetooth LE.", systemImage: "exclamationmark.triangle")
            case .notStarted, .starting, .ready:
                EmptyView()
            }
            LabeledContent("This phone", value: activity)
            LabeledContent("Encounters kept", value: "\(tracer.encounterCount)")
            if let until = tracer.idsUntil {
                LabeledContent("Pseudo-IDs until", value: until.formatted(date: .abbreviated, time: .shortened))
            } else {
                Text("No pseudo-IDs yet: Rollcall issues them when the phone is online.")
            }
        }
    }

    /// "Broadcasting, listening" and the like: what the tracer asks for, as far as the radio does it.
    private var activity: String {
        let broadcast = tracer.broadcasting != nil && radio.advertising ? "Broadcasting" : "Not broadcasting"
        let listen =
            if !tracer.listening {
                "resting a minute"
            } else if radio.scanning {
                "listening"
            } else {
                "not listening"
            }
        return "\(broadcast), \(listen)"
    }

    /// What the phone keeps, for how long, and when anything of it leaves the phone.
    private var kept: some View {
        Section("What is kept") {
            Text(
                "Your phone broadcasts a pseudo-ID that changes every \(Int(ProximityTracer.windowSeconds / 60)) minutes. Other phones hear only that; Rollcall issued it and knows it was yours."
            )
            Text(
                "For each pseudo-ID your phone hears, it keeps when it first and last heard it and the strongest signal, on this phone, for \(ProximityTracer.keepDays) days."
            )
            Text(
                "Nothing it heard leaves the phone unless you upload it, after seeing what the upload holds. The one exception: a check-in to a class that counts nearby phones brings the pseudo-IDs heard in the last \(Int(ProximityTracer.recentSeconds / 60)) minutes."
            )
            Text("Turning this off makes the phone and Rollcall forget all of it at once.")
        }
    }

    /// The health officers' requests for an upload, and an upload of the person's own accord.
    private var requests: some View {
        Section {
            if tracer.requests.isEmpty {
                Text("No health officer has asked for an upload.")
            }
            ForEach(tracer.requests, id: \.id) { request in
                NavigationLink {
                    UploadView(tracer: tracer, request: request)
                } label: {
                    VStack(alignment: .leading) {
                        Text("A health officer asks for an upload")
                        Text(
                            "Case \(request.reportId), asked \(request.createdAt.formatted(date: .abbreviated, time: .shortened))"
                        )
                        .font(.footnote)
                        .foregroundStyle(.secondary)
                    }
                }
            }
            NavigationLink("Upload what this phone heard") { UploadView(tracer: tracer, request: nil) }
        } header: {
            Text("Health officers' requests")
        } footer: {
            Text("An upload is your choice: you see what it holds first, and nothing is sent until you confirm.")
        }
    }

    private func turnOn() async {
        defer {
            busy = false
            on = tracer.isOn
        }
        // A refusal or no network: `tracer.problem` says which, below.
        try? await tracer.turnOn(at: Date())
    }

    private func turnOff() async {
        defer {
            busy = false
            on = tracer.isOn
        }
        try? await tracer.turnOff()
    }
}

/// One upload: first what it would hold, sent only when the person confirms; then what Rollcall kept of it.
struct UploadView: View {
    let tracer: ProximityTracer
    /// The health officer's request it answers; `nil` for an upload of the person's own accord.
    let request: ProximityRequest?
    /// What the person is shown, and agrees to: computed once, so that the upload holds no more than they saw.
    @State private var plan: ProximityTracer.UploadPlan?
    @State private var receipt: ProximityTracer.UploadReceipt?
    @State private var uploading = false
    @State private var failure: String?

    var body: some View {
        List {
            if let receipt {
                Section("Uploaded") {
                    LabeledContent("Sent", value: "\(receipt.sent)")
                    LabeledContent("Kept by Rollcall", value: "\(receipt.kept)")
                    LabeledContent("Not Rollcall's, or heard outside their 5 minutes", value: "\(receipt.unknown)")
                }
            } else if let plan {
                planned(plan)
            }
            if let failure {
                Section { Text(failure).foregroundStyle(.red) }
            }
        }
        .navigationTitle(request == nil ? "Upload" : "Answer a request")
        .onAppear {
            if plan == nil { plan = tracer.planUpload(answering: request?.id) }
        }
    }

    @ViewBuilder
    private func planned(_ plan: ProximityTracer.UploadPlan) -> some View {
        Section {
            if plan.count == 0 {
                Text("This phone has kept no encounters: there is nothing to upload.")
            } else {
                LabeledContent("Encounters", value: "\(plan.count)")
                if let from = plan.from {
                    LabeledContent("From", value: from.formatted(date: .abbreviated, time: .shortened))
                }
                if let until = plan.until {
                    LabeledContent("Until", value: until.formatted(date: .abbreviated, time: .shortened))
                }
            }
        } header: {
            Text("What the upload holds")
        } footer: {
            Text(
                "Each encounter is a pseudo-ID your phone heard, when it first and last heard it, and the strongest signal. Rollcall can tell whose phones they were; a health officer reads that only in a report."
            )
        }
        if let request {
            Section {
                Text(
                    "It answers the health officer's request of \(request.createdAt.formatted(date: .abbreviated, time: .shortened)) (case \(request.reportId))."
                )
            }
        }
        if plan.count > 0 {
            Section {
                Button("Upload these \(plan.count) encounters") { Task { await upload(plan) } }
                    .disabled(uploading)
                    .accessibilityHint("Sends the encounters above to Rollcall. Nothing is sent until you tap this.")
                if uploading { ProgressView("Uploading…") }
            }
        }
    }

    private func upload(_ plan: ProximityTracer.UploadPlan) async {
        uploading = true
        defer { uploading = false }
        do {
            receipt = try await tracer.upload(plan)
            failure = nil
        } catch {
            failure = tracer.problem?.message ?? "The upload did not go through: try again."
        }
    }
}

/// The tracer's clock while the app is in front: a tick every 10 seconds rotates the pseudo-ID on time and turns
/// listening on and off. In the background iOS suspends the app, and the clock with it.
struct ProximityClock: ViewModifier {
    let tracer: ProximityTracer?
    @Environment(\.scenePhase) private var phase

    func body(content: Content) -> some View {
        content.task(id: tracer != nil && phase == .active) { [tracer, active = (phase == .active)] in
            guard let tracer, active else { return }
            while !Task.isCancelled {
                await tracer.tick(at: Date())
                try? await Task.sleep(for: .seconds(10))
            }
        }
    }
}

extension View {
    /// Runs `tracer`'s clock while the app is active.
    func proximityClock(_ tracer: ProximityTracer?) -> some View {
        modifier(ProximityClock(tracer: tracer))
    }
}
