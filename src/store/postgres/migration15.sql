-- Migration 15: telling reviewers of new items (SPEC §17):
--  * reviewers.notify, the reviewer's channel (`reviewer notify`), a column of the reviewer's
--    row and so written only by the store's owner (the reviewers guard of migration 11); it
--    is not among the columns a runner's role may read (a public topic's name is what lets
--    anyone read it);
--  * notifications, the claims that make each (item, reviewer) notified once across every
--    serve on the store: written by the owner and its serve roles alone (guard_writes), so a
--    runner's role can neither forge a claim (and silence a reviewer) nor delete one.
ALTER TABLE reviewers ADD COLUMN notify TEXT;
CREATE TABLE notifications (
    run_id TEXT COLLATE "C" NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    claimed_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, call_id, reviewer),
    FOREIGN KEY (run_id, call_id) REFERENCES calls (run_id, call_id) ON DELETE CASCADE
);
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON notifications FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_writes('serve');
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON notifications
    FOR EACH STATEMENT EXECUTE FUNCTION guard_writes('serve');
-- The serve roles granted before this migration claim too.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT role FROM store_roles WHERE kind = 'serve' LOOP
        EXECUTE format('GRANT SELECT, INSERT ON notifications TO %I', r.role);
    END LOOP;
END
$$;
