import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Who may show Rollcall's pages in a frame: a registered learning platform only the pages its launch leads to, and
/// nobody the others.
@Suite("Frames", .timeLimit(.minutes(3)))
struct FramingTests {
    @Test func a_platform_frames_the_pages_a_launch_leads_to_and_no_other() async throws {
        try await TestPlatform.run { api, platform, admin in
            LearningPlatformTests.fillCourse(platform, students: 1)
            let launch = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let location = try #require(launch.headers[.location], "\(launch.text)")
            let session = try #require(launch.sessionCookie)
            let courseID = try #require(Int64(location.replacingOccurrences(of: "/courses/", with: "")))
            let opened = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: admin, json: ["title": "Week 1"])
            let sessionID = try #require(opened.int("session.id"), "\(opened.text)")

            func ancestors(_ reply: Reply) -> String {
                String(reply.headers[.contentSecurityPolicy]?.split(separator: ";").last ?? "")
            }
            // A launch's pages: the course, the course list, a session, a check-in refused, a missing course.
            for path in [location, "/courses", "/sessions/\(sessionID)", "/c/NOTACODE", "/courses/999999"] {
                let page = try await api.call(.get, path, headers: [.cookie: session])
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true, "\(path): \(page.status)")
                #expect(ancestors(page).contains(platform.issuer), "\(path): \(ancestors(page))")
            }
            // Every other page: the admin's, the profile, the devices, the privacy page, the sign-in page.
            for (path, person) in [
                ("/admin", admin as Account?), ("/profile", admin), ("/devices", admin), ("/privacy", admin),
                ("/sign-in", nil),
            ] {
                let page = try await api.call(.get, path, as: person)
                #expect(page.status == .ok, "\(path): \(page.status)")
                #expect(ancestors(page) == " frame-ancestors 'none'", "\(path): \(ancestors(page))")
            }
            let profile = try await api.call(.get, "/profile", headers: [.cookie: session])
            #expect(profile.status == .ok && !ancestors(profile).contains(platform.issuer), "\(ancestors(profile))")
        }
    }
}
