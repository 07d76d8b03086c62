extension Migrations {
    package static let step026InvitationMail = Step(
        name: "026_invitation_mail",
        statements: [
            // When an invitation's letter was queued; none yet while it waits for its teacher's daily allowance.
            // Every invitation made before this step was mailed when it was made.
            "ALTER TABLE course_invitations ADD COLUMN mailed_at {time}",
            "UPDATE course_invitations SET mailed_at = invited_at",
            "CREATE INDEX course_invitations_mailed ON course_invitations(invited_by, mailed_at)",
        ]
    )
}
