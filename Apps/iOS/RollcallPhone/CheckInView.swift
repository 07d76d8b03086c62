import RollcallApp
import RollcallClient
import SwiftUI

/// The camera, then the answer: "you're in", or why not and what to do next.
struct CheckInView: View {
    let model: CheckInModel

    var body: some View {
        VStack(spacing: 24) {
            switch model.state {
            case .scanning:
                QRScannerView { link in Task { await model.scanned(link) } }
            case .checkingIn:
                ProgressView("Checking in…")
            case .waitingForNetwork(let scannedAt):
                Label(
                    "No network. Your scan from \(scannedAt.formatted(date: .omitted, time: .shortened)) is kept and sent as soon as the network is back.",
                    systemImage: "wifi.slash")
            case .checkedIn(let result):
                Label(
                    result.new ? "You're in: \(result.sessionTitle)" : "You were already checked in.",
                    systemImage: "checkmark.circle.fill"
                )
                .foregroundStyle(.green)
            case .refused(let problem):
                Text(problem.message)
                switch problem.next {
                case .scanAgain: Button("Scan again") { model.scanAgain() }
                case .tryAgain: Button("Try again") { Task { await model.tryAgain() } }
                case .moveCloser(let distance, _):
                    Text(distance.map { "You are \(Int($0)) m from the room." } ?? "Move closer to the room.")
                    Button("Scan again") { model.scanAgain() }
                case .registerPasskey: Text("Register a passkey on this phone in Settings, then scan again.")
                case .wait(let seconds): Text("Try again in \(seconds) seconds.")
                case .signIn: Text("Sign in again.")
                case .joinCourse: Text("Join the course with the code your teacher gave, then scan again.")
                case .none: Button("Done") { model.scanAgain() }
                }
            }
            if let storageProblem = model.storageProblem {
                Text(storageProblem).foregroundStyle(.red)
            }
        }
        .padding()
        .onReceive(NetworkWatch.shared.$isOnline) { online in
            if online { Task { await model.networkReturned() } }
        }
    }
}

/// A student's record in a course.
struct RecordView: View {
    let model: RecordModel

    var body: some View {
        List {
            if case .loaded(let record) = model.state {
                Section("This course") {
                    Text(
                        "Present \(record.summary.present), late \(record.summary.late), absent \(record.summary.absent)"
                    )
                }
                ForEach(record.sessions, id: \.sessionId) { session in
                    LabeledContent(session.title, value: session.status?.rawValue ?? "—")
                }
            } else if case .failed(let problem) = model.state {
                Text(problem.message)
            }
        }
        .task { await model.load() }
    }
}

/// A teacher's sessions of a course: open one, watch its room, project its code.
struct SessionsView: View {
    let rollcall: Rollcall
    let course: Course
    @State private var sessions: [Session] = []

    var body: some View {
        List(sessions, id: \.id) { session in
            NavigationLink(session.title) { RoomView(model: RoomModel(rollcall: rollcall, sessionID: session.id)) }
        }
        .toolbar {
            Button("Open a session") {
                Task {
                    _ = try? await rollcall.openSession(courseID: course.id)
                    sessions = (try? await rollcall.sessions(courseID: course.id)) ?? sessions
                }
            }
        }
        .task { sessions = (try? await rollcall.sessions(courseID: course.id)) ?? [] }
    }
}

/// The live room: counts, then every student, present rows green and the others red.
struct RoomView: View {
    let model: RoomModel

    var body: some View {
        List {
            if let counts = model.counts {
                Text("\(counts.checkedIn) of \(counts.enrolled) checked in").font(.headline)
            }
            ForEach(model.rows) { row in
                LabeledContent(row.name, value: row.status ?? "not yet")
                    .foregroundStyle(row.status == "present" || row.status == "late" ? .green : .red)
            }
        }
        .navigationTitle(model.title)
        .task { await model.follow() }
    }
}

/// The rotating QR code, full screen, from the projector model's matrix.
struct ProjectorView: View {
    let model: ProjectorModel

    var body: some View {
        VStack {
            Canvas { context, size in
                let count = model.modules.count
                guard count > 0 else { return }
                let module = min(size.width, size.height) / CGFloat(count + 8)
                for (y, row) in model.modules.enumerated() {
                    for (x, dark) in row.enumerated() where dark {
                        context.fill(
                            Path(
                                CGRect(
                                    x: CGFloat(x + 4) * module, y: CGFloat(y + 4) * module, width: module,
                                    height: module)),
                            with: .color(.black))
                    }
                }
            }
            .background(.white)
            if let frame = model.frame {
                Text("\(frame.checkedIn) of \(frame.enrolled) checked in")
                if let typed = frame.typedCode { Text(typed).font(.largeTitle.monospaced()) }
            }
        }
        .task { await model.follow() }
    }
}
