import Foundation

/// How much of a course's grade comes from attendance and how much from quizzes, in percent of the whole.
public struct GradeWeights: Codable, Equatable, Sendable {
    public var attendance: Int
    public var quizzes: Int

    /// Attendance alone: what a course starts with, so that running a quiz never changes a grade unasked.
    public static let attendanceOnly = GradeWeights(attendance: 100, quizzes: 0)

    public init(attendance: Int, quizzes: Int) {
        self.attendance = attendance
        self.quizzes = quizzes
    }

    /// The weights, refused unless each is a whole percentage and together they make 100.
    public func validated() throws(RuleViolation) -> GradeWeights {
        guard (0...100).contains(attendance), (0...100).contains(quizzes) else {
            throw RuleViolation(field: "gradeWeights", message: "Give each weight from 0 to 100%.")
        }
        guard attendance + quizzes == 100 else {
            throw RuleViolation(
                field: "gradeWeights",
                message:
                    "Attendance and quizzes must make 100% together; \(attendance)% and \(quizzes)% make \(attendance + quizzes)%."
            )
        }
        return self
    }
}

/// One student's points over the quizzes of a course that count for them.
public struct QuizScore: Equatable, Sendable {
    /// Quiz runs that count.
    public var quizzes: Int
    public var points: Double
    /// What full marks on every counted quiz would have earned.
    public var maxPoints: Int
    /// Short answers still waiting for the teacher's mark; they earn nothing until marked.
    public var pending: Int

    public init(quizzes: Int, points: Double, maxPoints: Int, pending: Int) {
        self.quizzes = quizzes
        self.points = points
        self.maxPoints = maxPoints
        self.pending = pending
    }

    /// Points out of `maxPoints`, 0 to 100; `nil` while no quiz counts.
    public var percentage: Double? {
        maxPoints > 0 ? points * 100 / Double(maxPoints) : nil
    }

    /// How the score is made, in one sentence.
    public var explanation: Phrase {
        guard quizzes > 0 else { return "Quizzes: none has counted yet; a quiz counts once it has stopped." }
        let points = Phrase.Value.text(Gradebook.number(points))
        guard pending > 0 else {
            return .counting(
                quizzes, one: "Quizzes: {1} of {2} points over {0} quiz.",
                other: "Quizzes: {1} of {2} points over {0} quizzes.", points, .number(maxPoints))
        }
        let waiting = Phrase.counting(
            pending, one: "{0} answer waits for the teacher's mark", other: "{0} answers wait for the teacher's mark")
        return .counting(
            quizzes, one: "Quizzes: {1} of {2} points over {0} quiz; {3}.",
            other: "Quizzes: {1} of {2} points over {0} quizzes; {3}.", points, .number(maxPoints), .phrase(waiting))
    }
}

/// A course's figures per student: attendance from the `AttendanceSheet`, points from the stopped quizzes, and the
/// course grade that weighs the two.
public struct Gradebook: Sendable {
    /// A quiz run as the gradebook sees it.
    public struct QuizRun: Sendable, Equatable {
        public var id: Int64
        /// The class session it ran in: a student excused from that session is excused from the quiz.
        public var sessionID: Int64
        public var maxPoints: Int
        public var startedAt: Date
        /// Only a stopped run counts: points of a quiz still running would change under the student's eyes.
        public var stopped: Bool

        public init(id: Int64, sessionID: Int64, maxPoints: Int, startedAt: Date, stopped: Bool) {
            self.id = id
            self.sessionID = sessionID
            self.maxPoints = maxPoints
            self.startedAt = startedAt
            self.stopped = stopped
        }
    }

    /// A student's attempt at a run: its points and its answers still to mark.
    public struct QuizResult: Sendable, Equatable {
        public var points: Double
        public var pending: Int

        public init(points: Double, pending: Int) {
            self.points = points
            self.pending = pending
        }
    }

    public var sheet: AttendanceSheet
    public var runs: [QuizRun]
    /// Results by run id, then student id.
    public var results: [Int64: [Int64: QuizResult]]
    public var weights: GradeWeights

    public init(
        sheet: AttendanceSheet, runs: [QuizRun], results: [Int64: [Int64: QuizResult]], weights: GradeWeights
    ) {
        self.sheet = sheet
        self.runs = runs
        self.results = results
        self.weights = weights
    }

    /// A student's quiz points over the stopped runs that count for them.
    ///
    /// A run counts when the student made an attempt, or when they were on the roster as it started and were not
    /// excused from its session: a missed quiz earns nothing, an excused one does not count.
    public func quizScore(studentID: Int64) -> QuizScore {
        let student = sheet.students.first { $0.id == studentID }
        var score = QuizScore(quizzes: 0, points: 0, maxPoints: 0, pending: 0)
        for run in runs where run.stopped {
            if let result = results[run.id]?[studentID] {
                score.points += result.points
                score.pending += result.pending
            } else {
                guard let joinedAt = student?.joinedAt, joinedAt <= run.startedAt,
                    sheet.statuses[run.sessionID]?[studentID] != .excused
                else { continue }
            }
            score.quizzes += 1
            score.maxPoints += run.maxPoints
        }
        return score
    }

    /// A student's figures: attendance, quizzes and the course grade.
    public func figures(studentID: Int64) -> Figures {
        Figures(
            attendance: sheet.summary(studentID: studentID), quizzes: quizScore(studentID: studentID), weights: weights)
    }

    /// What a student's page and the teacher's reports show, each figure with the sentence that explains it.
    public struct Figures: Equatable, Sendable {
        public var attendance: AttendanceSummary
        public var quizzes: QuizScore
        public var weights: GradeWeights
        /// The course grade, 0 to 100; `nil` while nothing with a weight counts.
        public var courseGrade: Double?
        public var courseGradeExplanation: Phrase

        public init(attendance: AttendanceSummary, quizzes: QuizScore, weights: GradeWeights) {
            self.attendance = attendance
            self.quizzes = quizzes
            self.weights = weights
            // A part with nothing counted yet gives its weight to the other, rather than counting as zero.
            let parts = [
                (Part.attendance, weights.attendance, attendance.grade),
                (Part.quizzes, weights.quizzes, quizzes.percentage),
            ].filter { $0.1 > 0 }
            let counted = parts.compactMap { part, weight, value in value.map { (part, weight, $0) } }
            let total = counted.reduce(0) { $0 + $1.1 }
            courseGrade =
                total == 0 ? nil : counted.reduce(0) { $0 + Double($1.1) * $1.2 } / Double(total)
            courseGradeExplanation = Self.courseGradeSentence(counted: counted, weighted: parts.count)
        }

        /// The parts of the course grade.
        enum Part { case attendance, quizzes }

        /// How the course grade is made, in one sentence: `counted` are the parts with a figure, with their weights.
        static func courseGradeSentence(counted: [(Part, Int, Double)], weighted: Int) -> Phrase {
            func name(_ part: Part) -> Phrase { part == .attendance ? "attendance grade" : "quizzes" }
            guard let first = counted.first else { return "Course grade: nothing counts yet." }
            guard counted.count > 1 else {
                let percent = Gradebook.percent(first.2)
                if weighted > 1 {
                    return
                        "Course grade: the \(name(first.0)) (\(percent)), as nothing else with a weight has counted yet."
                }
                return "Course grade: the \(name(first.0)) (\(percent))."
            }
            // Two parts at most: the attendance grade and the quizzes.
            let terms = counted.map { part, weight, value -> Phrase in
                "\(weight)% \(name(part)) (\(Gradebook.percent(value)))"
            }
            return "Course grade: \(terms[0]) + \(terms[1])."
        }

        /// How the attendance percentage is made, in one sentence.
        public var attendanceExplanation: Phrase {
            let attended = (attendance.counts[.present] ?? 0) + (attendance.counts[.late] ?? 0)
            let excused = attendance.counts[.excused] ?? 0
            let expected = attendance.sessions - excused
            guard attendance.sessions > 0 else {
                return "Attendance: no session counts yet; a session counts once it has closed or has a check-in."
            }
            guard expected > 0 else {
                return "Attendance: no figure, as every session that counts so far was excused."
            }
            guard excused > 0 else {
                return .counting(
                    expected, one: "Attendance: present or late at {1} of {0} session.",
                    other: "Attendance: present or late at {1} of {0} sessions.", .number(attended))
            }
            return .counting(
                expected, one: "Attendance: present or late at {1} of {0} session, not counting {2} excused.",
                other: "Attendance: present or late at {1} of {0} sessions, not counting {2} excused.",
                .number(attended), .number(excused))
        }

        /// How the attendance grade is made, in one sentence.
        public func gradeExplanation(points: StatusPoints) -> Phrase {
            guard attendance.sessions > 0 else { return "Attendance grade: no session counts yet." }
            return .counting(
                attendance.sessions,
                one:
                    "Attendance grade: {1} of {2} points over {0} session (present {3}, late {4}, excused {5}, absent {6}).",
                other:
                    "Attendance grade: {1} of {2} points over {0} sessions (present {3}, late {4}, excused {5}, absent {6}).",
                .number(attendance.points), .number(attendance.maxPoints), .number(points.present),
                .number(points.late), .number(points.excused), .number(points.absent))
        }
    }

    /// A whole number as such, anything else to two decimals.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// A percentage rounded to a whole, as the pages show it.
    static func percent(_ value: Double) -> String {
        "\(Int(value.rounded()))%"
    }
}
