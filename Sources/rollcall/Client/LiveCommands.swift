import ArgumentParser
import Foundation
import QRCode
import RollcallClient
import RollcallCore
import RollcallProtocol
import RollcallServer
import RollcallWeb
import RollcallWords

/// `rollcall watch SESSION`: the room live in the terminal.
struct Watch: SpeakingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch a session's room live: the counts and the latest check-ins.",
        discussion: """
            On a terminal the picture is redrawn in place; otherwise each change is a line (with --json, each message \
            is one line of JSON). Ends when the session closes. A dropped connection resumes by itself without \
            losing or repeating a check-in.
            """
    )
    @Argument(help: "The session's id.")
    var session: Int64
    @Option(help: "How many of the latest check-ins a terminal shows.")
    var latest = 10
    @OptionGroup var options: ClientOptions

    func run(speaking language: CommandLineLanguage) async throws {
        let rollcall = try options.rollcall(speaking: language)
        let course = try await rollcall.course(try await rollcall.session(session).courseId)
        var room = RoomPicture(zone: Dates.zone(of: course), reader: language.reader)
        let redraw = Terminal.outputIsTerminal && !options.json
        for try await message in rollcall.room(sessionID: session) {
            let lines = room.apply(message)
            if options.json {
                try Terminal.printJSON(message, pretty: false)
            } else if redraw {
                print(Terminal.clearScreen + room.screen(latest: latest), terminator: "")
                Terminal.flush()
            } else {
                for line in lines { print(line) }
                Terminal.flush()
            }
            if room.closed { break }
        }
        if redraw { print() }
    }
}

/// The room as the terminal shows it, kept up to date from the live messages.
struct RoomPicture {
    /// The course's zone, which the times are written in.
    var zone: TimeZone
    /// Whom the lines are for.
    var reader: Reader
    var title = ""
    var phase = ""
    var names: [Int64: String] = [:]
    var counts: LiveCounts?
    /// Newest last.
    var checkIns: [String] = []
    var closed: Bool { phase == "closed" }

    /// Applies a message; answers the lines it adds to a plain log.
    mutating func apply(_ message: RoomMessage) -> [String] {
        switch message {
        case .snapshot(let snapshot):
            title = snapshot.session.title
            phase = snapshot.session.phase
            counts = snapshot.counts
            for student in snapshot.students {
                names[student.id] = student.name + (student.studentNumber.map { " (\($0))" } ?? "")
                if let status = student.status, let at = student.at {
                    checkIns.append("\(Dates.clock(at, in: zone))  \(names[student.id]!)  \(status)")
                }
            }
            return ["\(title) (\(phase))", countsLine]
        case .event(let event):
            let who = event.studentID.map { names[$0] ?? reader.say("student \($0)") } ?? ""
            let at = Dates.clock(event.createdAt, in: zone)
            switch event.eventKind {
            case .checkedIn:
                let line = "\(at)  \(who)  \(event.status ?? "present")"
                checkIns.append(line)
                return [reader.say("\(at) checked in: \(who), \(event.status ?? "present")")]
            case .statusChanged:
                let previous = event.data["previous"]?.string ?? "none"
                checkIns.append("\(at)  \(who)  \(event.status ?? "")")
                return [reader.say("\(at) changed by hand: \(who), \(previous) → \(event.status ?? "")")]
            case .flagged:
                return [reader.say("\(at) flagged: \(who), \(event.data["kind"]?.string ?? "")")]
            case .sessionOpened, .sessionClosed:
                phase = event.data["phase"]?.string ?? (event.eventKind == .sessionClosed ? "closed" : "open")
                return [reader.say("\(at) the session is now \(phase)")]
            default:
                return []
            }
        case .counts(let update):
            counts = update.counts
            return [countsLine]
        }
    }

    var countsLine: String {
        guard let counts else { return "" }
        return reader.say(
            "\(counts.checkedIn) of \(counts.enrolled) checked in: present \(counts.present), late \(counts.late), excused \(counts.excused), absent \(counts.absent), not yet \(counts.notYet)"
        )
    }

    func screen(latest: Int) -> String {
        var lines = ["\(title) (\(phase))", countsLine, "", reader.say("Latest check-ins:")]
        lines += checkIns.suffix(max(0, latest)).reversed().map { "  " + $0 }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `rollcall projector SESSION`: the rotating QR code drawn in the terminal.
struct Projector: SpeakingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Project a session's rotating QR code in the terminal, for a quick session without a browser.",
        discussion: """
            Drawn with Unicode half blocks, dark on light, each new code as it turns. Ends when the session closes. \
            With --json, each frame is one line of JSON (without the SVG).
            """
    )
    @Argument(help: "The session's id.")
    var session: Int64
    @OptionGroup var options: ClientOptions

    func run(speaking language: CommandLineLanguage) async throws {
        let rollcall = try options.rollcall(speaking: language)
        let terminal = Terminal.outputIsTerminal && !options.json
        var shownStep: Int64?
        for try await frame in rollcall.projector(sessionID: session) {
            if options.json {
                var frame = frame
                frame.svg = nil
                try Terminal.printJSON(frame, pretty: false)
            } else if terminal {
                print(
                    Terminal.clearScreen + (try Self.render(frame, colours: true, in: language.reader)), terminator: "")
                Terminal.flush()
            } else if frame.step != shownStep || frame.phase == .closed {
                shownStep = frame.step
                print(try Self.render(frame, colours: false, in: language.reader))
                Terminal.flush()
            }
            if frame.phase == .closed { break }
        }
    }

    /// The frame as text: the QR code of its link, then the count and the code to type.
    static func render(_ frame: ProjectorFrame, colours: Bool, in reader: Reader) throws -> String {
        var lines = [frame.title]
        if let url = frame.url {
            lines += QRBlocks.lines(try QRCode(encoding: url, errorCorrection: .medium), colours: colours)
            lines.append(url)
        } else if frame.phase != .open {
            lines.append(reader.say("The session is \(frame.phase.rawValue)."))
        }
        if let typed = frame.typedCode { lines.append(reader.say("Or type the code: \(typed)")) }
        lines.append(reader.say("\(frame.checkedIn) of \(frame.enrolled) checked in"))
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A QR code in Unicode half blocks: two rows of modules per line of text, with the quiet zone around it.
enum QRBlocks {
    static let quietZone = 4

    static func lines(_ code: QRCode, colours: Bool) -> [String] {
        let range = -quietZone..<(code.size + quietZone)
        func dark(_ x: Int, _ y: Int) -> Bool {
            (0..<code.size).contains(x) && (0..<code.size).contains(y) && code[x, y]
        }
        var lines: [String] = []
        for y in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = colours ? "\u{1B}[30;47m" : ""
            for x in range {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + (colours ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
