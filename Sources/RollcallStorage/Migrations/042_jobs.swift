extension Migrations {
    package static let step042Jobs = Step(
        name: "042_jobs",
        statements: [
            // Work done in the background, by kind (`lti_score`: a grade for a learning platform's gradebook). A job
            // waits as `pending` until a process claims it (`running`, until `claimed_until`, so that a crashed
            // process's claim runs out), then is `done`, `failed` after its last attempt, or `superseded` when it
            // failed while a newer job of its key was waiting. Jobs of one kind and key run one at a time, oldest
            // first; the course and person say whom it concerns, for the admin's list and a person's erasure.
            """
            CREATE TABLE jobs (
                id {id}, kind TEXT NOT NULL, key TEXT NOT NULL, payload TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,
                next_attempt_at {time}, claimed_until {time},
                course_id BIGINT REFERENCES courses(id) ON DELETE SET NULL,
                user_id BIGINT REFERENCES users(id) ON DELETE CASCADE,
                created_at {time} NOT NULL, updated_at {time} NOT NULL)
            """,
            // One waiting job a key: a newer one takes the waiting one's place (an upsert on this index), so that
            // two processes queuing at once cannot leave two behind.
            "CREATE UNIQUE INDEX jobs_waiting ON jobs(kind, key) WHERE status = 'pending'",
            "CREATE INDEX jobs_due ON jobs(status, next_attempt_at)",
            "CREATE INDEX jobs_key ON jobs(kind, key, id)",
            "CREATE INDEX jobs_user ON jobs(user_id)",
            // Scores were outbox messages on the `lti` channel (the line item as subject, the platform's subject
            // of the student as recipient). They move over with their history; of a line item and student with
            // more than one waiting, only the newest waits on, as the outbox would have sent only it.
            """
            INSERT INTO jobs (
                kind, key, payload, status, attempts, last_error, next_attempt_at, course_id, user_id, created_at,
                updated_at)
            SELECT 'lti_score', message.subject || ' ' || message.recipient, message.body,
                CASE
                    WHEN message.status NOT IN ('queued', 'sending') THEN
                        CASE message.status WHEN 'sent' THEN 'done' WHEN 'replaced' THEN 'superseded' ELSE 'failed' END
                    WHEN EXISTS (
                        SELECT 1 FROM outbox AS newer
                        WHERE newer.channel = 'lti' AND newer.subject = message.subject
                          AND newer.recipient = message.recipient AND newer.id > message.id
                          AND newer.status IN ('queued', 'sending')) THEN 'superseded'
                    ELSE 'pending'
                END,
                message.attempts, message.last_error,
                CASE WHEN message.status IN ('queued', 'sending')
                    THEN COALESCE(message.next_attempt_at, message.created_at) END,
                (SELECT linked.course_id FROM lti_courses AS linked WHERE linked.line_item_url = message.subject
                    ORDER BY linked.id LIMIT 1),
                (SELECT person.user_id FROM lti_identities AS person
                    JOIN lti_courses AS linked ON linked.platform_id = person.platform_id
                    WHERE linked.line_item_url = message.subject AND person.subject = message.recipient
                    ORDER BY linked.id LIMIT 1),
                message.created_at, COALESCE(message.sent_at, message.created_at)
            FROM outbox AS message WHERE message.channel = 'lti' ORDER BY message.id
            """,
            "DELETE FROM outbox WHERE channel = 'lti'",
        ]
    )
}
