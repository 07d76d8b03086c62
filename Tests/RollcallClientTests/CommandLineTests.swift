import ClientTestSupport
import Foundation
import QRCode
import RollcallClient
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The `rollcall` binary as a teacher uses it, against a real server: golden `--json` output, the exit statuses,
/// the saved sign-in, a 2,000-row roster import's progress, the live room and the projector.
@Suite("rollcall command line", .serialized, .timeLimit(.minutes(3)))
struct CommandLineTests {
    @Test func a_teachers_term_from_the_command_line() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun()
            defer { cli.remove() }
            let server = try api.serverURL().absoluteString
            let teacher = try await api.register("Tess Teacher", role: "teacher")

            let signedOut = try await cli.run("courses")
            #expect(signedOut.status == 4 && signedOut.errors.contains("rollcall login URL"), "\(signedOut)")

            let wrong = try await cli.run(
                "login", server, "--email", teacher.email, "--password-stdin", input: "nope\n")
            #expect(wrong.status == 1, "\(wrong)")
            #expect(wrong.errors.hasPrefix("rollcall: ") && wrong.errors.contains("password"), "\(wrong.errors)")

            let login = try await cli.run(
                "login", server + "/", "--email", teacher.email, "--password-stdin", input: API.password + "\n")
            #expect(login.status == 0, "\(login)")
            #expect(login.output == "Signed in to \(server) as Tess Teacher (teacher).\n")
            let saved = cli.configDirectory + "/login.json"
            let mode = try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? Int
            #expect(mode == 0o600, "the token is readable by its owner only")

            let created = try await cli.run("course", "create", "Biology 101", "--time-zone", "Europe/Berlin", "--json")
            #expect(created.status == 0, "\(created)")
            try expectGolden(created.output, "course-create.json")
            let courses = try await cli.run("courses", "--json")
            try expectGolden(courses.output, "courses.json")
            let table = try await cli.run("courses")
            #expect(
                table.output.hasPrefix("ID  NAME         STUDENTS  JOIN CODE  TEACHER\n1   Biology 101  0   "),
                "\(table)")

            let opened = try await cli.run("session", "open", "1", "--title", "Week 1", "--period", "10", "--json")
            #expect(opened.status == 0, "\(opened)")
            try expectGolden(opened.output, "session-open.json")
            let closed = try await cli.run("session", "close", "1", "--json")
            try expectGolden(closed.output, "session-close.json")
            let again = try await cli.run("session", "close", "1")
            #expect(again.status == 1 && again.errors.hasPrefix("rollcall: "), "\(again)")
            let listed = try await cli.run("session", "list", "1")
            #expect(listed.output.contains("1   closed  0        0     0       Week 1"), "\(listed.output)")

            let spot = try await cli.run(
                "session", "open", "1", "--mode", "spot", "--latitude", "52", "--longitude", "4", "--radius", "50",
                "--room", "B204", "--json")
            #expect(spot.status == 0, "\(spot)")
            let settings = try #require(
                (try JSONSerialization.jsonObject(with: Data(spot.output.utf8)) as? [String: Any])?["settings"]
                    as? [String: Any])
            #expect(settings["mode"] as? String == "spot" && settings["room"] as? String == "B204", "\(settings)")
            #expect((settings["geofence"] as? [String: Any])?["radius"] as? Double == 50, "\(settings)")
            // Text for people: the closing time on the course's clock (Berlin), whatever the terminal's zone.
            let before = Date().addingTimeInterval(30 * 60)
            let text = try await cli.run("session", "open", "1", "--open-minutes", "30")
            #expect(text.status == 0, "\(text)")
            let berlin = DateFormatter()
            berlin.timeZone = TimeZone(identifier: "Europe/Berlin")
            berlin.dateFormat = "HH:mm"
            // The minute may turn while the command runs.
            let minutes = [before, Date().addingTimeInterval(30 * 60)].map { "open until \(berlin.string(from: $0))" }
            #expect(minutes.contains { text.output.contains($0) } && text.output.contains("Europe/Berlin"), "\(text)")

            let badMode = try await cli.run("session", "open", "1", "--mode", "bluetooth")
            #expect(badMode.status == 2, "\(badMode)")

            let report = cli.configDirectory + "/report.csv"
            let exported = try await cli.run("export", "1", "--out", report)
            #expect(exported.status == 0 && exported.output == "Wrote 0 students to \(report).\n", "\(exported)")
            let csv = try String(contentsOfFile: report, encoding: .utf8)
            #expect(csv.contains("Name,Email,Student number,Week 1"), "\(csv)")

            let blank = try await cli.run("course", "create", "  ")
            #expect(blank.status == 1 && blank.output.isEmpty, "\(blank)")
            #expect(blank.errors.split(separator: "\n").count == 1, "one sentence: \(blank.errors)")
            let usage = try await cli.run("session", "close", "Monday")
            #expect(usage.status == 2, "\(usage)")
            let missing = try await cli.run("session", "close", "99")
            #expect(missing.status == 1 && missing.errors.contains("session"), "\(missing)")

            let logout = try await cli.run("logout")
            #expect(logout.status == 0 && !FileManager.default.fileExists(atPath: saved), "\(logout)")
            #expect(try await cli.run("courses").status == 4)

            // Nothing listens at the address once the relay is offline.
            let network = try await NetworkSwitch.start(to: 9)
            await network.goOffline()
            let unreachable = try await cli.run(
                "login", "http://127.0.0.1:\(network.port)", "--email", teacher.email, "--password-stdin",
                input: API.password + "\n")
            await network.stop()
            #expect(unreachable.status == 3 && unreachable.errors.contains("could not be reached"), "\(unreachable)")
        }
    }

    @Test func proximity_simulate_drives_the_api_as_phones_would() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun()
            defer { cli.remove() }
            let server = try api.serverURL().absoluteString
            let bad = try await cli.run("proximity", "simulate", "--phones", "1", "--server", server)
            #expect(bad.status == 2 && bad.errors.contains("--phones"), "\(bad)")
            let notSignedIn = try await cli.run("proximity", "simulate")
            #expect(notSignedIn.status == 4, "\(notSignedIn)")

            let ran = try await cli.run(
                "proximity", "simulate", "--phones", "6", "--group", "3", "--minutes", "4", "--uploads", "2",
                "--server", server, "--json")
            #expect(ran.status == 0, "\(ran)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.output.utf8)) as? [String: Any])
            #expect(summary["phones"] as? Int == 6 && summary["rooms"] as? Int == 2)
            #expect(summary["pairsHeard"] as? Int == 12, "three phones a room hear each other: 6 pairs a room")
            // Four minutes fall in one five-minute window or two: each phone heard two others once a window.
            let encounters = try #require(summary["encountersKept"] as? Int)
            #expect([12, 24].contains(encounters), "\(encounters)")
            let sent = try #require(summary["sent"] as? Int)
            #expect(sent == encounters / 3, "two of the six phones uploaded")
            #expect(summary["kept"] as? Int == sent && summary["unknown"] as? Int == 0)
            #expect(try await api.snapshot()["proximity_encounters"]?.count == sent, "the server kept each")

            let text = try await cli.run(
                "proximity", "simulate", "--phones", "4", "--group", "2", "--minutes", "2", "--server", server)
            #expect(text.status == 0, "\(text)")
            #expect(text.output.contains("4 phones in 2 rooms for 2 minutes"), "\(text.output)")
        }
    }

    @Test func the_command_line_speaks_its_shells_language_and_asks_the_server_for_it() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun(locale: "fr_FR.UTF-8")
            defer { cli.remove() }
            let french = Catalogs.shipped["fr"]
            let server = try api.serverURL().absoluteString
            let teacher = try await api.register("Tess Teacher", role: "teacher")

            let signedOut = try await cli.run("courses")
            #expect(signedOut.status == 4)
            #expect(
                signedOut.errors
                    == "rollcall: \(french.text("You are not signed in: run `rollcall login URL` first."))\n")

            // The server's refusal, said in French because the command line asked for it.
            let wrong = try await cli.run(
                "login", server, "--email", teacher.email, "--password-stdin", input: "nope\n")
            let refusal = french.text("The email address or password is wrong.")
            #expect(wrong.status == 1 && wrong.errors == "rollcall: \(refusal)\n", "\(wrong.errors)")
            #expect(refusal != "The email address or password is wrong.")

            _ = try await cli.run(
                "login", server, "--email", teacher.email, "--password-stdin", input: API.password + "\n")
            let none = try await cli.run("courses")
            #expect(none.output == french.text("No courses yet: create one with `rollcall course create NAME`.") + "\n")
        }
    }

    @Test func a_roster_of_2000_rows_shows_its_progress() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun()
            defer { cli.remove() }
            let teacher = try await api.register("Tess Teacher", role: "teacher")
            let course = try await api.rollcall(teacher).createCourse(name: "Biology 101")
            _ = try await cli.run(
                "login", try api.serverURL().absoluteString, "--email", teacher.email, "--password-stdin",
                input: API.password + "\n")
            let file = cli.configDirectory + "/roster.csv"
            let rows = (1...2000).map { "Student \($0),student\($0)@school.test,S\(String(format: "%05d", $0))" }
            try (["name,email,student number"] + rows).joined(separator: "\n").write(
                toFile: file, atomically: true, encoding: .utf8)

            let imported = try await cli.run("roster", "import", String(course.id), file)
            #expect(imported.status == 0, "\(imported)")
            #expect(
                imported.output == "Enrolled 0, already enrolled 0, invited by email 2,000.\n", "\(imported.output)")
            let lines = imported.errors.split(separator: "\n").map(String.init)
            #expect(lines.first == "Importing \(file): 2001 lines…")
            let sent = lines.compactMap { line -> Int? in
                guard line.hasPrefix("Sent "), let slash = line.firstIndex(of: "/") else { return nil }
                return Int(line[line.index(line.startIndex, offsetBy: 5)..<slash])
            }
            #expect(sent.count >= 5, "progress shown as the upload goes: \(lines)")
            #expect(sent == sent.sorted() && sent.last == 2001, "\(sent)")
            #expect(lines.contains("Sent 2001/2001 lines (100%)"))
            #expect(lines.last == "Sent; waiting for the server to check every row…")

            let bad = cli.configDirectory + "/bad.csv"
            try "name,email\nAda,ada@school.test\nBen,not-an-email\n,blank@school.test\n".write(
                toFile: bad, atomically: true, encoding: .utf8)
            let refused = try await cli.run("roster", "import", String(course.id), bad)
            #expect(refused.status == 1, "\(refused)")
            #expect(
                refused.errors.contains("line 3: ") && refused.errors.contains("(invalid_email)"), "\(refused.errors)")
            #expect(
                refused.errors.contains("line 4: ") && refused.errors.contains("(invalid_name)"), "\(refused.errors)")
        }
    }

    @Test func watch_and_projector_follow_the_session_until_it_closes() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun()
            defer { cli.remove() }
            let room = try await Classroom.open(api, settings: ["period": 60])
            let ben = try await room.enrol(api, "Ben Bright")
            _ = try await cli.run(
                "login", try api.serverURL().absoluteString, "--email", room.teacher.email, "--password-stdin",
                input: API.password + "\n")
            let session = String(room.sessionID)
            let watch = try cli.start(["watch", session])
            let watchJSON = try cli.start(["watch", session, "--json"])
            let projector = try cli.start(["projector", session])
            try await eventually("the room on screen") {
                watch.output.contains("0 of 2 checked in") && watchJSON.output.contains("\"snapshot\"")
                    && projector.output.contains("0 of 2 checked in")
            }

            let link = try #require(try await api.rollcall(room.teacher).projectorFrame(sessionID: room.sessionID).url)
            for (index, student) in [room.student, ben].enumerated() {
                _ = try await api.rollcall(student).checkIn(
                    scannedLink: link, proof: CheckInProof(deviceID: "phone-000\(index)"))
            }
            try await eventually("both check-ins on screen") { watch.output.contains("2 of 2 checked in") }
            _ = try await api.rollcall(room.teacher).closeSession(room.sessionID)

            let watched = await watch.ended()
            #expect(watched.status == 0, "\(watched)")
            let lines = watched.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasSuffix(" (open)") == true, "the session's title and phase first: \(lines)")
            #expect(lines.filter { $0.contains("checked in: Cass Checkin, present") }.count == 1, "\(lines)")
            #expect(lines.filter { $0.contains("checked in: Ben Bright, present") }.count == 1, "\(lines)")
            #expect(lines.last?.hasSuffix("the session is now closed") == true, "\(lines)")

            let json = await watchJSON.ended()
            #expect(json.status == 0)
            let types = json.output.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
            }
            #expect(types.first == "snapshot" && types.filter { $0 == "event" }.count == 3, "\(types)")

            let projected = await projector.ended()
            #expect(projected.status == 0, "\(projected)")
            let screen = projected.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let urlLine = try #require(screen.firstIndex { $0.hasPrefix("HTTP") })
            let url = screen[urlLine]
            #expect(url == link)
            let code = try QRCode(encoding: url, errorCorrection: .medium)
            let rows = (code.size + 2 * 4 + 1) / 2
            let drawn = Array(screen[(urlLine - rows)..<urlLine])
            #expect(Self.modules(drawn, size: code.size) == Self.modules(code), "the terminal shows the code's QR")
            #expect(projected.output.contains("The session is closed."))
        }
    }

    /// The dark modules of a QR code drawn in half blocks with a quiet zone of 4.
    static func modules(_ lines: [String], size: Int) -> [[Bool]] {
        var grid = Array(repeating: Array(repeating: false, count: size + 8), count: lines.count * 2)
        for (row, line) in lines.enumerated() {
            for (column, character) in line.enumerated() where column < size + 8 {
                grid[2 * row][column] = character == "█" || character == "▀"
                grid[2 * row + 1][column] = character == "█" || character == "▄"
            }
        }
        return (0..<size).map { y in (0..<size).map { x in grid[y + 4][x + 4] } }
    }

    static func modules(_ code: QRCode) -> [[Bool]] {
        (0..<code.size).map { y in (0..<code.size).map { x in code[x, y] } }
    }

    @Test func a_student_signs_in_with_a_code_texted_to_their_phone() async throws {
        try await withServer(setup: .live) { api in
            let cli = CommandLineRun()
            defer { cli.remove() }
            let server = try api.serverURL().absoluteString
            let student = try await api.register("Pia Phone")
            let asked = try await api.call(.post, "/api/v1/me/phone", as: student, json: ["phone": "+44 7700 900555"])
            #expect(asked.status == .accepted, "\(asked.text)")
            let confirmed = try await api.call(
                .post, "/api/v1/me/phone/confirm", as: student,
                json: ["phone": "+447700900555", "code": try await api.textedCode(to: "+447700900555")])
            #expect(confirmed.status == .ok, "\(confirmed.text)")

            // The command asks the server to text a code, then reads it: typed here once the text is in the outbox.
            let (running, keyboard) = try cli.startTyping(["login", server, "--phone", "+44 7700 900555"])
            var code: String?
            let deadline = Date().addingTimeInterval(60)
            while code == nil, Date() < deadline {
                let texts = try await api.texts(to: "+447700900555")
                if texts.count == 2 { code = texts.first?.firstMatch(of: /^(\d{6}) is your/).map { String($0.1) } }
                if code == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            keyboard.write(Data((try #require(code) + "\n").utf8))
            try keyboard.close()
            let ended = await running.ended()
            #expect(ended.status == 0, "\(ended)")
            #expect(ended.output == "Signed in to \(server) as Pia Phone (student).\n")
            let courses = try await cli.run("courses", "--json")
            #expect(courses.status == 0, "the saved sign-in works: \(courses)")

            // A wrong code is refused in a sentence, with the refused status.
            let wrong = try await cli.run("login", server, "--phone", "+44 7700 900555", input: "000000\n")
            #expect(wrong.status == 1 && wrong.errors.hasPrefix("rollcall: "), "\(wrong)")
            let both = try await cli.run("login", server, "--phone", "+44 7700 900555", "--email", "x@school.test")
            #expect(both.status == 2, "\(both)")
        }
    }
}
