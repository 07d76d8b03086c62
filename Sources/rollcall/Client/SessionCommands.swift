import ArgumentParser
import Foundation
import RollcallClient
import RollcallCore
import RollcallServer
import RollcallWords

/// `rollcall roster import COURSE FILE.csv`.
struct RosterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster", abstract: "Import a course's students.", subcommands: [Import.self])

    struct Import: SpeakingCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a roster from CSV: name, email and an optional student number per row.",
            discussion: """
                Either every row is taken or none is: a refused import lists each bad row by line on standard \
                error. Progress goes to standard error (a bar on a terminal, a line per tenth otherwise).
                """
        )
        @Argument(help: "The course's id (see `rollcall courses`).")
        var course: Int64
        @Argument(help: "The CSV file (UTF-8, at most 2000 rows).")
        var file: String
        @OptionGroup var options: ClientOptions

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure(status: .refused, message: "Cannot read \(file).")
            }
            let progress = UploadProgress(data, reader: reader)
            Terminal.standardError(reader.say("Importing \(file): \(String(progress.rows)) lines…"))
            let result: RosterImportResult
            do {
                result = try await options.rollcall(speaking: language).importRoster(
                    courseID: course, csv: data, chunkSize: 2048, progress: { sent, _ in progress.sent(sent) })
            } catch let error as RollcallError where !error.rows.isEmpty {
                progress.finish()
                for row in error.rows {
                    Terminal.standardError(reader.say("line \(row.line): \(row.message) (\(row.code))"))
                }
                throw CommandFailure(
                    status: .refused, message: "\(error.message) Nothing was imported; fix the lines above.")
            }
            progress.finish()
            if options.json { return try Terminal.printJSON(result) }
            print(
                reader.say(
                    "Enrolled \(result.enrolled), already enrolled \(result.alreadyEnrolled), invited by email \(result.invited.count)."
                ))
        }
    }
}

/// Shows how much of an upload is sent, in rows, on standard error.
final class UploadProgress: @unchecked Sendable {
    /// Byte offsets just past each row's end.
    private let rowEnds: [Int]
    let rows: Int
    private let lock = NSLock()
    private var shownTenth = -1
    private let terminal = Terminal.errorIsTerminal
    private let reader: Reader

    init(_ data: Data, reader: Reader) {
        self.reader = reader
        var ends: [Int] = []
        for (offset, byte) in data.enumerated() where byte == UInt8(ascii: "\n") { ends.append(offset + 1) }
        if let last = data.last, last != UInt8(ascii: "\n") { ends.append(data.count) }
        rowEnds = ends
        rows = ends.count
    }

    func sent(_ bytes: Int) {
        var low = 0
        var high = rowEnds.count
        while low < high {
            let middle = (low + high) / 2
            if rowEnds[middle] <= bytes { low = middle + 1 } else { high = middle }
        }
        show(rowsSent: low)
    }

    func finish() {
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
        Terminal.standardError(reader.say("Sent; waiting for the server to check every row…"))
    }

    private func show(rowsSent: Int) {
        let total = max(rows, 1)
        lock.withLock {
            if terminal {
                let width = 30
                let filled = width * rowsSent / total
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                FileHandle.standardError.write(Data("\r\(bar) \(rowsSent)/\(rows) lines".utf8))
            } else {
                let tenth = 10 * rowsSent / total
                guard tenth > shownTenth else { return }
                shownTenth = tenth
                // Progress figures stay plain digits, for scripts that read them.
                Terminal.standardError(reader.say("Sent \(String(rowsSent))/\(String(rows)) lines (\(tenth * 10)%)"))
            }
        }
    }
}

extension Components.Schemas.CheckInMode: ExpressibleByArgument {}

/// `rollcall session open|close|list`.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Open, close and list sessions.",
        subcommands: [Open.self, Close.self, List.self])

    struct Open: SpeakingCommand {
        static let configuration = CommandConfiguration(abstract: "Open a session of a course now.")
        @Argument(help: "The course's id.")
        var course: Int64
        @Option(help: "The session's title; a date-based one when left out.")
        var title: String?
        @Option(help: "Seconds each rotating code is shown (2 to 60).")
        var period: Int?
        @Option(help: "Minutes the session takes check-ins.")
        var openMinutes: Int?
        @Option(help: "Minutes after opening from which a check-in is late.")
        var lateAfterMinutes: Int?
        @Flag(help: "Let students type the short code as well as scan it.")
        var allowTyping = false
        @Option(help: "How students check in: qr (the rotating code), spot (location only) or typed.")
        var mode: Components.Schemas.CheckInMode?
        @Option(help: "The geofence's centre: latitude in degrees (with --longitude and --radius).")
        var latitude: Double?
        @Option(help: "The geofence's centre: longitude in degrees.")
        var longitude: Double?
        @Option(help: "The geofence's radius in metres (5 to 5000).")
        var radius: Double?
        @Option(help: "Where the class meets, such as B204.")
        var room: String?
        @OptionGroup var options: ClientOptions

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            let settings = SessionSettings(
                mode: mode, period: period, latitude: latitude, longitude: longitude, radius: radius,
                openMinutes: openMinutes, lateAfterMinutes: lateAfterMinutes, allowTyping: allowTyping ? true : nil,
                room: room)
            let rollcall = try options.rollcall(speaking: language)
            let session = try await rollcall.openSession(courseID: course, title: title, settings: settings)
            if options.json { return try Terminal.printJSON(session) }
            let zone = Dates.zone(of: try await rollcall.course(course))
            if let closesAt = session.closesAt {
                let until = "\(Dates.clock(closesAt, in: zone)) \(zone.identifier)"
                print(
                    reader.say(
                        "Opened session \(session.id), “\(session.title)”, open until \(until). Project it: rollcall projector \(session.id)"
                    ))
            } else {
                print(
                    reader.say(
                        "Opened session \(session.id), “\(session.title)”. Project it: rollcall projector \(session.id)"
                    ))
            }
        }
    }

    struct Close: SpeakingCommand {
        static let configuration = CommandConfiguration(abstract: "Close a session: it takes no more check-ins.")
        @Argument(help: "The session's id.")
        var session: Int64
        @OptionGroup var options: ClientOptions

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            let closed = try await options.rollcall(speaking: language).closeSession(session)
            if options.json { return try Terminal.printJSON(closed) }
            let counts = closed.counts
            print(
                reader.say(
                    "Closed session \(closed.id), “\(closed.title)”: present \(counts.present), late \(counts.late), excused \(counts.excused), absent \(counts.absent)."
                ))
        }
    }

    struct List: SpeakingCommand {
        static let configuration = CommandConfiguration(abstract: "List a course's sessions, newest first.")
        @Argument(help: "The course's id.")
        var course: Int64
        @OptionGroup var options: ClientOptions

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            let sessions = try await options.rollcall(speaking: language).sessions(courseID: course)
            if options.json { return try Terminal.printJSON(sessions) }
            if sessions.isEmpty {
                return print(reader.say("No sessions yet: open one with `rollcall session open \(course)`."))
            }
            print(
                Table.render(
                    ["ID", "PHASE", "PRESENT", "LATE", "ABSENT", "TITLE"],
                    sessions.map { session in
                        [
                            String(session.id), session.phase.rawValue, String(session.counts.present),
                            String(session.counts.late), String(session.counts.absent), session.title,
                        ]
                    }))
        }
    }
}

/// `rollcall export COURSE --out FILE.csv`.
struct Export: SpeakingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a course's attendance as CSV: a row per student, a column per session, then the totals.")
    @Argument(help: "The course's id.")
    var course: Int64
    @Option(help: "The file to write; - for standard output.")
    var out: String
    @OptionGroup var options: ClientOptions

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let csv = try await options.rollcall(speaking: language).courseReport(courseID: course)
        if out == "-" {
            FileHandle.standardOutput.write(csv)
            return
        }
        guard FileManager.default.createFile(atPath: out, contents: csv) else {
            throw CommandFailure(status: .refused, message: "Cannot write \(out).")
        }
        let rows = max(0, csv.split(separator: UInt8(ascii: "\n")).count - 1)
        struct Written: Encodable {
            var file: String
            var students: Int
        }
        if options.json { return try Terminal.printJSON(Written(file: out, students: rows)) }
        print(reader.say("Wrote \(rows) students to \(out)."))
    }
}
