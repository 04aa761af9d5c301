-- Migration 18: `--on-resolve CMD` (SPEC §17): each resolved item's hook runs once across
-- every process on the store, claimed by the first process that runs it:
--  * resolve_claims, the claims: written only by the store's owner, that is through
--    claim_resolution (guard_writes, and no grant to write it), so that no role can
--    silence another's hook by claiming an item that is still pending, nor claim one of a
--    run it cannot see; every role granted the store reads them;
--  * claim_resolution(run, call), a definer function any role may call: it claims the item
--    only when it really is resolved (decided, expired or cancelled) and not yet claimed,
--    at the database's time, and says whether this call claimed it;
--  * calls_resolved, which finds the items resolved lately.
CREATE TABLE resolve_claims (
    run_id TEXT COLLATE "C" NOT NULL,
    call_id TEXT NOT NULL,
    claimed_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, call_id),
    FOREIGN KEY (run_id, call_id) REFERENCES calls (run_id, call_id) ON DELETE CASCADE
);
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON resolve_claims FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_writes('owner');
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON resolve_claims
    FOR EACH STATEMENT EXECUTE FUNCTION guard_writes('owner');
CREATE INDEX calls_resolved ON calls (resolved_at) WHERE resolved_at IS NOT NULL;

CREATE FUNCTION claim_resolution(p_run text, p_call text) RETURNS boolean
LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    WITH claimed AS (
        INSERT INTO resolve_claims (run_id, call_id, claimed_at)
            SELECT run_id, call_id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
            FROM calls WHERE run_id = p_run AND call_id = p_call AND kind IS NOT NULL
                AND state IN ('resolved', 'expired', 'cancelled')
        ON CONFLICT DO NOTHING
        RETURNING 1)
    SELECT EXISTS (SELECT FROM claimed)
$$;

-- The roles granted before this migration read the claims too.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT role FROM store_roles LOOP
        EXECUTE format('GRANT SELECT ON resolve_claims TO %I', r.role);
    END LOOP;
END
$$;
