extension Migrations {
    package static let step043AnswerAnswered = Step(
        name: "043_answer_answered",
        statements: [
            // Whether a stored answer counts as answered (not blank), as the attempt's count of answered questions
            // counted it: a save that keeps it so can replace the answer without reading it first. Answers stored
            // before this step, or by a process from before it during an upgrade, have none (NULL): their next save
            // reads them.
            "ALTER TABLE quiz_answers ADD COLUMN answered {bool}"
        ]
    )
}
