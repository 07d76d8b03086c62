import ClientTestSupport
import Foundation
import PasskeyTestSupport
import QRCode
import RollcallApp
import RollcallClient
import ServerTestSupport
import Testing

/// The native app's screens, driven as a person would, against a real server.
@Suite("RollcallApp view models", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct AppModelTests {
    @Test func signing_in() async throws {
        try await withServer(setup: .live) { api in try await Self.signing_in(api) }
    }

    static func signing_in(_ api: API) async throws {
        let student = try await api.register("Sam Student")
        let model = SignInModel(server: try api.rollcall())
        #expect(!model.canSubmit)
        model.email = student.email
        model.password = "not the password"
        await model.signIn()
        #expect(model.state.problem?.code == "invalid_credentials" && model.state.problem?.next == NextStep.none)
        #expect((model.state.problem?.message.description.count ?? 0) > 10, "a sentence for the person")
        model.edit()
        model.password = API.password
        await model.signIn()
        #expect(model.state == .signedIn(try await api.rollcall(student).me()))
        #expect(model.password.isEmpty && model.rollcall?.token != nil)
    }

    @Test func signing_in_with_a_passkey() async throws {
        try await withServer(setup: .live) { api in try await Self.signing_in_with_a_passkey(api) }
    }

    static func signing_in_with_a_passkey(_ api: API) async throws {
        let student = try await api.register("Sam Student")
        let authenticator = SoftwareAuthenticator.of(student)
        try await api.addPasskey(student, authenticator)
        let phone = Phone(authenticator)
        let stranger = Phone(SoftwareAuthenticator.of(try await api.register("Other Student")))
        let model = SignInModel(server: try api.rollcall())
        await model.signInWithPasskey { try stranger.answer($0) }
        #expect(model.state.problem?.code == "passkey_unknown", "a passkey never registered: \(model.state)")
        await model.signInWithPasskey { try phone.answer($0) }
        #expect(model.state == .signedIn(try await api.rollcall(student).me()))
    }

    @Test func signing_in_with_a_texted_code() async throws {
        try await withServer(setup: .live) { api in try await Self.signing_in_with_a_texted_code(api) }
    }

    static func signing_in_with_a_texted_code(_ api: API) async throws {
        let student = try await api.register("Pia Phone")
        let asked = try await api.call(.post, "/api/v1/me/phone", as: student, json: ["phone": "+447700900777"])
        #expect(asked.status == .accepted, "\(asked.text)")
        let confirmed = try await api.call(
            .post, "/api/v1/me/phone/confirm", as: student,
            json: ["phone": "+447700900777", "code": try await api.textedCode(to: "+447700900777")])
        #expect(confirmed.status == .ok, "\(confirmed.text)")
        let model = SignInModel(server: try api.rollcall())
        model.phone = "+44 7700 900777"
        model.code = "123456"
        await model.signInWithCode()
        #expect(model.state == .editing && !model.codeSent, "no code asked for yet: nothing is sent")
        await model.sendCode()
        #expect(model.codeSent && model.state == .editing, "\(model.state)")
        let texted = try await api.textedCode(to: "+447700900777")
        model.code = texted == "000000" ? "111111" : "000000"
        await model.signInWithCode()
        #expect(model.state.problem?.code == "invalid_code", "\(model.state)")
        model.edit()
        model.code = texted
        await model.signInWithCode()
        #expect(model.state == .signedIn(try await api.rollcall(student).me()))
        #expect(model.code.isEmpty && model.rollcall?.token != nil)
    }

    @Test func joining_and_listing_courses() async throws {
        try await withServer(setup: .live) { api in try await Self.joining_and_listing_courses(api) }
    }

    static func joining_and_listing_courses(_ api: API) async throws {
        let (_, _, code) = try await api.teacherWithCourse()
        let courses = CourseListModel(rollcall: try api.rollcall(try await api.register("Sam Student")))
        await courses.join(code: "nonsense")
        #expect(courses.state.problem?.code == "invalid_join_code", "\(courses.state)")
        await courses.join(code: code.lowercased())
        #expect(try #require(courses.state.courses).map(\.name) == ["Biology 101"])
    }

    @Test func checking_in_through_every_refusal_and_the_lost_network() async throws {
        try await withServer(setup: .live) { api in
            try await Self.checking_in_through_every_refusal_and_the_lost_network(api)
        }
    }

    static func checking_in_through_every_refusal_and_the_lost_network(_ api: API) async throws {
        let room = try await Classroom.open(
            api, settings: ["latitude": 52.0, "longitude": 4.0, "radius": 50, "period": 60])
        let network = try await NetworkSwitch.start(to: try #require(api.client.port))
        let place = Place()
        let model = CheckInModel(
            rollcall: try api.rollcall(room.student, through: network),
            proof: CheckInProof(deviceID: "phone-0001", location: { place.now }))
        let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)

        let outsider = CheckInModel(
            rollcall: try api.rollcall(try await api.register("Olly Outsider")),
            proof: CheckInProof(deviceID: "phone-0009"))
        await outsider.scanned(link)
        #expect(
            outsider.state.problem?.code == "not_enrolled" && outsider.state.problem?.next == .joinCourse,
            "\(outsider.state)")

        await model.scanned("https://example.com/menu")
        #expect(model.state.problem?.code == "invalid_code" && model.state.problem?.next == .scanAgain)

        await model.scanned(link)
        #expect(model.state.problem?.code == "location_required" && model.state.problem?.next == .tryAgain)
        #expect(model.canTryAgain)

        place.now = Location(latitude: 52.01, longitude: 4.0, accuracy: 5)
        await model.tryAgain()
        let far = try #require(model.state.problem, "a check-in a kilometre away: \(model.state)")
        #expect(far.code == "out_of_range")
        if case .moveCloser(let distance, let radius) = far.next {
            #expect((distance ?? 0) > 1000 && radius == 50)
        } else {
            Issue.record("out of range offers moving closer: \(far.next)")
        }
        #expect(!model.canTryAgain, "moving closer comes before trying again")

        place.now = Classroom.here.location
        await network.goOffline()
        await model.scanned(link)
        #expect(model.state.isWaitingForNetwork, "a scan without network: \(model.state)")
        #expect(await model.queue.pending.count == 1)
        network.goOnline()
        await model.networkReturned()
        let result = try #require(model.state.result, "the queued scan once the network returned: \(model.state)")
        #expect(result.new && result.status == .present)
        #expect(await model.queue.pending.isEmpty)
        await network.stop()

        let record = RecordModel(
            rollcall: try api.rollcall(room.student), courseID: room.courseID, studentID: room.student.id)
        await record.load()
        let loaded = try #require(record.state.record, "the student's record: \(record.state)")
        #expect(loaded.summary.present == 1 && loaded.sessions.first?.status == .present)
    }

    @Test func the_teachers_room_and_projector() async throws {
        try await withServer(setup: .live) { api in try await Self.the_teachers_room_and_projector(api) }
    }

    static func the_teachers_room_and_projector(_ api: API) async throws {
        let room = try await Classroom.open(api, settings: ["period": 60])
        let teacher = try api.rollcall(room.teacher)
        let roomModel = RoomModel(rollcall: teacher, sessionID: room.sessionID)
        let projector = ProjectorModel(rollcall: teacher, sessionID: room.sessionID)
        let following = Task { await roomModel.follow() }
        let projecting = Task { await projector.follow() }
        defer { following.cancel() }
        try await eventually("the room and the code") {
            await MainActor.run { roomModel.rows.count == 1 && !projector.modules.isEmpty }
        }
        #expect(roomModel.rows(withStatus: nil).map(\.name) == ["Cass Checkin"])
        let url = try #require(projector.frame?.url)
        let code = try QRCode(encoding: url, errorCorrection: .medium)
        #expect(projector.modules.count == code.size && projector.modules[0].count == code.size)

        let phone = CheckInModel(
            rollcall: try api.rollcall(room.student), proof: CheckInProof(deviceID: "phone-0002"))
        await phone.scanned(url)
        try await eventually("the check-in in the room") {
            await MainActor.run { roomModel.counts?.checkedIn == 1 && projector.frame?.checkedIn == 1 }
        }
        #expect(roomModel.rows(withStatus: "present").map(\.id) == [room.student.id])
        #expect(roomModel.latest == [room.student.id])

        _ = try await teacher.closeSession(room.sessionID)
        await projecting.value
        #expect(projector.frame?.phase == .closed && projector.problem == nil)
        try await eventually("the room closed") { await MainActor.run { roomModel.phase == "closed" } }
    }
}

extension AppModelTests {
    @Test func typing_the_code_and_trying_again() async throws {
        try await withServer(setup: .live) { api in try await Self.typing_the_code_and_trying_again(api) }
    }

    /// A typed code in a session with a fence: refused without a location, then taken once it is allowed.
    static func typing_the_code_and_trying_again(_ api: API) async throws {
        let room = try await Classroom.open(
            api, settings: ["mode": "typed", "period": 60, "latitude": 52.0, "longitude": 4.0, "radius": 50])
        let typed = try #require(
            try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).typedCode)
        let place = Place()
        let model = CheckInModel(
            rollcall: try api.rollcall(room.student),
            proof: CheckInProof(deviceID: "phone-0001", location: { place.now }))
        await model.typed(typed, sessionID: room.sessionID)
        #expect(model.state.problem?.code == "location_required" && model.canTryAgain, "\(model.state)")
        place.now = Classroom.here.location
        await model.tryAgain()
        #expect(model.state.result?.new == true, "\(model.state)")
    }

    @Test func a_lecture_through_the_app_screens() async throws {
        try await withServer(setup: .live) { api in try await Self.a_lecture_through_the_app_screens(api) }
    }

    /// A teacher's room screen while 40 phones check in through their check-in screens, ten of them offline first.
    static func a_lecture_through_the_app_screens(_ api: API) async throws {
        let room = try await Classroom.open(api, settings: ["period": 60])
        var students = [room.student]
        for number in 2...40 { students.append(try await room.enrol(api, "Student \(number)")) }
        let network = try await NetworkSwitch.start(to: try #require(api.client.port))
        let teacher = try api.rollcall(room.teacher)
        let roomModel = RoomModel(rollcall: teacher, sessionID: room.sessionID)
        let following = Task { await roomModel.follow() }
        defer { following.cancel() }
        let link = try #require(try await teacher.projectorFrame(sessionID: room.sessionID).url)
        let phones = try students.enumerated().map { index, student in
            CheckInModel(
                rollcall: try api.rollcall(student, through: index < 10 ? network : nil),
                proof: CheckInProof(deviceID: "phone-\(1000 + index)"))
        }

        await network.goOffline()
        for phone in phones { await phone.scanned(link) }
        #expect(phones[..<10].allSatisfy { $0.state.isWaitingForNetwork })
        #expect(phones[10...].allSatisfy { $0.state.result?.new == true })
        network.goOnline()
        for phone in phones[..<10] { await phone.networkReturned() }
        #expect(phones.allSatisfy { $0.state.result?.status == .present }, "\(phones.map(\.state))")

        try await eventually("all 40 in the room") {
            await MainActor.run { roomModel.counts?.present == 40 && roomModel.latest.count == 40 }
        }
        #expect(Set(roomModel.latest) == Set(students.map(\.id)), "each student once among the latest")
        #expect(roomModel.rows(withStatus: "present").count == 40 && roomModel.rows(withStatus: nil).isEmpty)
        await network.stop()
    }
}

/// Where the test's phone is.
final class Place: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Location?
    var now: Location? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension SignInModel.State {
    var problem: Problem? { if case .failed(let problem) = self { problem } else { nil } }
}

extension CourseListModel.State {
    var problem: Problem? { if case .failed(let problem) = self { problem } else { nil } }
    var courses: [Course]? { if case .loaded(let courses) = self { courses } else { nil } }
}

extension CheckInModel.State {
    var problem: Problem? { if case .refused(let problem) = self { problem } else { nil } }
    var result: CheckInResult? { if case .checkedIn(let result) = self { result } else { nil } }
    var isWaitingForNetwork: Bool { if case .waitingForNetwork = self { true } else { false } }
}

extension RecordModel.State {
    var record: StudentRecord? { if case .loaded(let record) = self { record } else { nil } }
}

extension [String: Any] {
    var location: Location {
        Location(
            latitude: self["latitude"] as? Double ?? 0, longitude: self["longitude"] as? Double ?? 0,
            accuracy: Double(self["accuracy"] as? Int ?? 0))
    }
}
