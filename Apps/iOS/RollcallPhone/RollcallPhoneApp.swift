import RollcallApp
import RollcallClient
import SwiftUI

/// The phone app: sign in, the course list, scanning to check in; a teacher also gets the room and the projector.
@main
struct RollcallPhoneApp: App {
    @State private var signIn = SignInModel(
        server: Rollcall(serverURL: URL(string: Bundle.main.object(forInfoDictionaryKey: "RollcallServer") as! String)!)
    )

    var body: some Scene {
        WindowGroup {
            if let rollcall = signIn.rollcall, case .signedIn(let user) = signIn.state {
                HomeView(rollcall: rollcall, user: user)
            } else {
                SignInView(model: signIn)
            }
        }
    }
}

/// Email and password, or a passkey.
struct SignInView: View {
    @Bindable var model: SignInModel

    var body: some View {
        Form {
            TextField("Email", text: $model.email).textContentType(.username).keyboardType(.emailAddress)
                .textInputAutocapitalization(.never)
            SecureField("Password", text: $model.password).textContentType(.password)
            Button("Sign in") { Task { await model.signIn() } }.disabled(!model.canSubmit)
            Button("Sign in with a passkey") {
                Task { await model.signInWithPasskey(answer: PasskeyPrompt.answer) }
            }
            if case .failed(let problem) = model.state { Text(problem.message).foregroundStyle(.red) }
        }
        .disabled(model.state == .signingIn)
    }
}

/// A student's courses, the scan button and nearby phones; a teacher's courses and their rooms.
struct HomeView: View {
    let rollcall: Rollcall
    let user: User
    @State private var courses: CourseListModel?
    @State private var checkIn: CheckInModel?
    /// A student's proximity, for this sign-in: one tracer over one radio.
    @State private var tracer: ProximityTracer?
    @State private var radio: BluetoothRadio?

    var body: some View {
        NavigationStack {
            List {
                if case .loaded(let list) = courses?.state {
                    ForEach(list, id: \.id) { course in
                        if user.role == .student {
                            NavigationLink(course.name) {
                                RecordView(
                                    model: RecordModel(rollcall: rollcall, courseID: course.id, studentID: user.id))
                            }
                        } else {
                            NavigationLink(course.name) { SessionsView(rollcall: rollcall, course: course) }
                        }
                    }
                }
                if user.role == .student, let tracer, let radio {
                    NavigationLink {
                        ProximityView(tracer: tracer, radio: radio)
                    } label: {
                        Label("Nearby phones", systemImage: "dot.radiowaves.left.and.right")
                    }
                }
            }
            .navigationTitle("Courses")
            .toolbar {
                if user.role == .student, let checkIn {
                    NavigationLink("Scan") { CheckInView(model: checkIn) }
                }
            }
        }
        .proximityClock(tracer)
        .task {
            let list = CourseListModel(rollcall: rollcall)
            courses = list
            // Application Support does not exist in a new install, and the files below are written without asking.
            let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            if let support { try? FileManager.default.createDirectory(at: support, withIntermediateDirectories: true) }
            var proximity: ProximityTracer?
            if user.role == .student {
                let bluetooth = BluetoothRadio()
                // One log per person: another student signing in on this phone must not broadcast, or upload, this
                // one's pseudo-IDs and encounters.
                proximity = ProximityTracer(
                    rollcall: rollcall, radio: bluetooth,
                    storage: support?.appendingPathComponent("proximity-\(user.id).json"))
                radio = bluetooth
                tracer = proximity
            }
            checkIn = CheckInModel(
                rollcall: rollcall,
                proof: CheckInProof(
                    deviceID: DeviceID.current, location: { try await PhoneLocation.current() },
                    passkey: PasskeyPrompt.answer,
                    heard: { [proximity] in await proximity?.heardRecently(at: Date()) ?? [] }),
                storage: support?.appendingPathComponent("pending-check-ins.json"))
            await list.load()
        }
    }
}
