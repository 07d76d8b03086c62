import Foundation
import RollcallParts
import Testing

@testable import RollcallServer

/// The campus morning the bench measures is the classroom it says it is.
@Suite("Campus fixture", .timeLimit(.minutes(5)))
struct CampusFixtureTests {
    @Test func rooms_have_open_sessions_their_students_and_the_first_rooms_a_quiz() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-campus-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = Configuration(dataDirectory: directory, logLevel: .error)
        let fixture = try await CampusFixture.make(configuration, rooms: 3, enrolled: 4, quizRooms: 1)
        #expect(fixture.rooms.count == 3)
        #expect(fixture.rooms.map(\.studentTokens.count) == [4, 4, 4])
        #expect(Set(fixture.rooms.flatMap(\.studentTokens)).count == 12)
        #expect(fixture.rooms.map { $0.quizRunID != nil } == [true, false, false])
        try await Maintenance.withStores(configuration) { stores in
            for room in fixture.rooms {
                let session = try #require(try await stores.sessions.find(id: room.sessionID))
                #expect(session.phase(at: Date()) == .open)
                #expect(try await stores.checkIns.projected(sessionID: session.id)?.enrolled == 4)
                let course = try #require(try await stores.courses.find(id: session.courseId))
                #expect(course.joinCode == room.joinCode)
            }
        }
    }
}
