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

/// A student's courses and the scan button; a teacher's courses and their rooms.
struct HomeView: View {
    let rollcall: Rollcall
    let user: User
    @State private var courses: CourseListModel?
    @State private var checkIn: CheckInModel?

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
            }
            .navigationTitle("Courses")
            .toolbar {
                if user.role == .student, let checkIn {
                    NavigationLink("Scan") { CheckInView(model: checkIn) }
                }
            }
        }
        .task {
            let list = CourseListModel(rollcall: rollcall)
            courses = list
            checkIn = CheckInModel(
                rollcall: rollcall,
                proof: CheckInProof(
                    deviceID: DeviceID.current, location: { try await PhoneLocation.current() },
                    passkey: PasskeyPrompt.answer),
                storage: FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?
                    .appendingPathComponent("pending-check-ins.json"))
            await list.load()
        }
    }
}
