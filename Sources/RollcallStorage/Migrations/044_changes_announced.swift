extension Migrations {
    package static let step044ChangesAnnounced = Step(
        name: "044_changes_announced",
        statements: [],
        postgres: [
            // Every change to a row that a process may hold in a cache is announced to every process by PostgreSQL
            // itself, in the change's own transaction: delivered exactly when it commits, never when it rolls back,
            // and whichever statement made it, a store's, a maintenance task's or an operator's. A notice sent after
            // the commit, in a statement of its own, could be lost with the process that owed it, and one a store
            // forgot to send was never sent at all. The arguments name the notice (`ChangeNotice.payload`) and the
            // column of the old row it carries.
            """
            CREATE OR REPLACE FUNCTION rollcall_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('rollcall_changes', TG_ARGV[0] || ' ' || (to_jsonb(COALESCE(OLD, NEW)) ->> TG_ARGV[1]));
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER users_deleted_announced AFTER DELETE ON users
            FOR EACH ROW EXECUTE FUNCTION rollcall_announce_change('user', 'id')
            """,
            // Not a first language kept where there was none: the process that kept it amends its cached account
            // (`UserStore.keepFirstLanguage`), and a notice would make it look every newcomer's token up again. Another
            // process that still holds no first language tries to keep one at the person's next request there, and
            // forgets the account when it finds one kept. Nor an update that changed nothing.
            """
            CREATE TRIGGER users_announced AFTER UPDATE ON users
            FOR EACH ROW WHEN (
                (to_jsonb(OLD) - 'first_language') <> (to_jsonb(NEW) - 'first_language')
                OR (OLD.first_language IS NOT NULL AND OLD.first_language IS DISTINCT FROM NEW.first_language))
            EXECUTE FUNCTION rollcall_announce_change('user', 'id')
            """,
            """
            CREATE TRIGGER access_tokens_announced AFTER UPDATE OR DELETE ON access_tokens
            FOR EACH ROW EXECUTE FUNCTION rollcall_announce_change('token', 'token_hash')
            """,
            """
            CREATE TRIGGER sessions_announced AFTER UPDATE OR DELETE ON sessions
            FOR EACH ROW EXECUTE FUNCTION rollcall_announce_change('session', 'id')
            """,
            // A course's zone says its sessions' default titles.
            """
            CREATE TRIGGER courses_announced AFTER UPDATE ON courses
            FOR EACH ROW EXECUTE FUNCTION rollcall_announce_change('course', 'id')
            """,
            // A course's passkey setting is a row of its own, made by its first save.
            """
            CREATE TRIGGER course_verification_announced AFTER INSERT OR UPDATE OR DELETE ON course_verification
            FOR EACH ROW EXECUTE FUNCTION rollcall_announce_change('course', 'course_id')
            """,
        ]
    )
}
