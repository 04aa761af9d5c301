-- Migration 17: one-tap decisions (SPEC §17): a secret per (item, decision, reviewer),
-- kept as its SHA-256 hash, single use, void after expires_at; `sends`, the form fields it
-- decides with. Only the owner and its serve roles read or write them (guard_writes, and no
-- grant to a runner's role): a runner's role can neither read a secret's row nor forge one.
CREATE TABLE taps (
    secret_hash TEXT PRIMARY KEY,
    run_id TEXT COLLATE "C" NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    label TEXT NOT NULL,
    sends TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    created_at BIGINT NOT NULL,
    FOREIGN KEY (run_id, call_id) REFERENCES calls (run_id, call_id) ON DELETE CASCADE
);
CREATE INDEX taps_by_reviewer ON taps (reviewer);
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON taps FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_writes('serve');
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON taps
    FOR EACH STATEMENT EXECUTE FUNCTION guard_writes('serve');
-- The serve roles granted before this migration use them too.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT role FROM store_roles WHERE kind = 'serve' LOOP
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON taps TO %I', r.role);
    END LOOP;
END
$$;
