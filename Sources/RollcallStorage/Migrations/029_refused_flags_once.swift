extension Migrations {
    package static let step029RefusedFlagsOnce = Step(
        name: "029_refused_flags_once",
        statements: [
            // A refused check-in tells the teacher once per student and kind, whichever process hears it first.
            """
            CREATE UNIQUE INDEX flags_refused_once ON flags(session_id, student_id, kind)
            WHERE kind IN ('tried_out_of_range', 'tried_imprecise_location')
            """
        ]
    )
}
