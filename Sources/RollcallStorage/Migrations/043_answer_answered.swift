extension Migrations {
    package static let step043AnswerAnswered = Step(
        name: "043_answer_answered",
        statements: [
            // Whether a stored answer counts as answered (not blank), as the attempt's count of answered questions
            // counted it, and the sequence of the save it was decided for: a save that keeps it so can replace the
            // answer without reading it first. It holds only while that sequence is the answer's: an answer stored
            // before this step, or changed by a process from before it during an upgrade, is read again.
            "ALTER TABLE quiz_answers ADD COLUMN answered {bool}",
            "ALTER TABLE quiz_answers ADD COLUMN answered_sequence BIGINT",
        ]
    )
}
