-- Migration 12: the indirect paths around a policy (SPEC §14). A runner's role deleted a
-- gated run (the cascade to its calls and decisions runs as the table's owner, whom the
-- guards let through), inserted it again under its id with no policy and arguments of its
-- choice, resolved it naming a reviewer, and set it running. Now, for every role but the
-- owner's:
--  * no run is deleted (`store grant` no longer grants DELETE on runs; the guard refuses it
--    whatever the grants): `prune` goes through prune_runs, which removes finished runs
--    with nothing pending (their decisions with them) and keeps their ids (pruned_runs,
--    which only the owner writes);
--  * a pruned run's id is never inserted again;
--  * a run's identity (agent, directory, host, creation) is set once, as its policy is, and
--    its status moves only as the program moves it: a cancelled run stays cancelled, and a
--    run with a pending item is neither running nor completed;
--  * a decision is never removed by a cascade (decisions -> calls is ON DELETE RESTRICT);
--  * resolve_item records who the session is, not whom it is told: where no policy
--    governs, the reviewer mapped to the session's role, else the role (as checked_by);
--    under a policy, the reviewer whose recorded decision resolves it, by the way that
--    decision was made.

CREATE TABLE pruned_runs (
    id TEXT COLLATE "C" PRIMARY KEY,
    pruned_at BIGINT NOT NULL
);
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON pruned_runs FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_writes('owner');
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON pruned_runs
    FOR EACH STATEMENT EXECUTE FUNCTION guard_writes('owner');

DO $$
DECLARE
    n text;
BEGIN
    FOR n IN SELECT conname FROM pg_constraint
        WHERE conrelid = 'decisions'::regclass AND contype = 'f'
    LOOP
        EXECUTE format('ALTER TABLE decisions DROP CONSTRAINT %I', n);
    END LOOP;
END
$$;
ALTER TABLE decisions ADD CONSTRAINT decisions_call FOREIGN KEY (run_id, call_id)
    REFERENCES calls (run_id, call_id) ON DELETE RESTRICT;

-- Whether run id p_id was pruned (a runner's role cannot read pruned_runs).
CREATE FUNCTION was_pruned(p_id text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT FROM pruned_runs WHERE id = p_id)
$$;

-- Whether run r may be pruned: in one of p_statuses and finished, last updated before
-- p_before, with no pending item. No SET, so that prune_runs's statements inline it.
CREATE FUNCTION prunable(r runs, p_statuses text[], p_before bigint) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT r.status = ANY (p_statuses) AND r.status IN ('completed', 'failed', 'cancelled')
        AND r.updated_at < p_before
        AND NOT EXISTS (SELECT FROM mastra_ask.calls c
            WHERE c.run_id = r.id AND c.state = 'pending')
$$;

-- Deletes the runs prunable(p_statuses, p_before), their decisions with them, and keeps
-- their ids (pruned at p_at); returns how many. The first statement locks the runs, so
-- they stay prunable for the later ones, which delete only runs whose id was kept.
CREATE FUNCTION prune_runs(p_statuses text[], p_before bigint, p_at bigint)
RETURNS bigint LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    INSERT INTO pruned_runs (id, pruned_at)
        SELECT r.id, p_at FROM runs r WHERE prunable(r, p_statuses, p_before) FOR UPDATE OF r
    ON CONFLICT (id) DO UPDATE SET pruned_at = excluded.pruned_at;
    DELETE FROM decisions d USING runs r
        WHERE d.run_id = r.id AND prunable(r, p_statuses, p_before)
        AND EXISTS (SELECT FROM pruned_runs p WHERE p.id = r.id);
    WITH gone AS (DELETE FROM runs r
        WHERE prunable(r, p_statuses, p_before)
        AND EXISTS (SELECT FROM pruned_runs p WHERE p.id = r.id)
        RETURNING 1)
    SELECT count(*) FROM gone
$$;

-- What a runner may do to a run: insert it (as who the session is, under an id never
-- pruned) and move it as the program does; never delete it, nor change what it is.
CREATE OR REPLACE FUNCTION guard_runs() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    me text;
BEGIN
    IF owns(current_user) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        PERFORM refuse(format('the role %s may not delete run %s: finished runs are pruned with mastra-ask prune',
            current_user, OLD.id));
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF was_pruned(NEW.id) THEN
            PERFORM refuse(format('the role %s may not create run %s again: it was pruned',
                current_user, NEW.id));
        END IF;
        SELECT name INTO me FROM reviewers
            WHERE pg_role = session_user::text AND removed_at IS NULL ORDER BY name LIMIT 1;
        IF FOUND THEN
            NEW.started_by := me;
            NEW.started_as := 'reviewer';
        ELSE
            NEW.started_by := session_user::text;
            NEW.started_as := 'pg-role';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.policy IS DISTINCT FROM OLD.policy OR NEW.started_by IS DISTINCT FROM OLD.started_by
        OR NEW.started_as IS DISTINCT FROM OLD.started_as
        OR NEW.on_expiry IS DISTINCT FROM OLD.on_expiry
        OR NEW.escalate_after_ms IS DISTINCT FROM OLD.escalate_after_ms
        OR NEW.id IS DISTINCT FROM OLD.id OR NEW.agent IS DISTINCT FROM OLD.agent THEN
        PERFORM refuse(format('the role %s may not change who may answer run %s',
            current_user, OLD.id));
    END IF;
    IF NEW.agent_id IS DISTINCT FROM OLD.agent_id OR NEW.cwd IS DISTINCT FROM OLD.cwd
        OR NEW.host IS DISTINCT FROM OLD.host OR NEW.os_uid IS DISTINCT FROM OLD.os_uid
        OR NEW.created_at IS DISTINCT FROM OLD.created_at
        OR NEW.expires_in_ms IS DISTINCT FROM OLD.expires_in_ms THEN
        PERFORM refuse(format('the role %s may not change what run %s is', current_user,
            OLD.id));
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF OLD.status = 'cancelled' THEN
            PERFORM refuse(format('the role %s may not move run %s from cancelled to %s',
                current_user, OLD.id, NEW.status));
        END IF;
        IF NEW.status IN ('running', 'completed') AND EXISTS (SELECT FROM calls
                WHERE run_id = OLD.id AND state = 'pending') THEN
            PERFORM refuse(format('the role %s may not set run %s %s: it has a pending item, which only a decision resolves',
                current_user, OLD.id, NEW.status));
        END IF;
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER guard ON runs;
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON runs FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_runs();

-- As migration 11's, but what is recorded as who resolved the item is checked: where no
-- policy governs and the session's role is neither the owner nor a serve role, who the
-- session is (p_by, p_checked_by and p_checked_as are claims, and are not recorded); under
-- a policy, p_by (whose decision decided_by found) by the way their decision was made.
CREATE OR REPLACE FUNCTION resolve_item(p_run text, p_call text, p_result text,
    p_resume_data text, p_by text, p_via text, p_checked_by text, p_checked_as text,
    p_approved_args text, p_digest text, p_at bigint)
RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT denied(format('tool call %s of run %s is not pending', p_call, p_run))
        WHERE NOT EXISTS (SELECT FROM calls
            WHERE run_id = p_run AND call_id = p_call AND state = 'pending' FOR UPDATE);
    UPDATE calls SET state = 'resolved', result = p_result, resume_data = p_resume_data,
        resolved_by = k.c[3], resolved_via = k.c[4], resolved_at = p_at, checked_by = k.c[1],
        checked_as = k.c[2], approved_args = p_approved_args, digest = p_digest
        FROM (SELECT CASE
                WHEN g.rule IS NOT NULL
                    THEN decided_by(p_run, p_call, p_by, p_result, p_resume_data, p_digest,
                        g.rule) || ARRAY[p_by, coalesce((SELECT via FROM decisions
                            WHERE run_id = p_run AND call_id = p_call AND reviewer = p_by),
                        p_via)]
                WHEN owns(session_user) OR vouches(session_user)
                    THEN ARRAY[p_checked_by, p_checked_as, p_by, p_via]
                ELSE (SELECT s.c || ARRAY[s.c[1], p_via] FROM session_checker() AS s(c))
            END AS c
            FROM (SELECT rule_of(r.policy, x.kind, x.tool_name) AS rule
                FROM calls x JOIN runs r ON r.id = x.run_id
                WHERE x.run_id = p_run AND x.call_id = p_call) g) k
        WHERE calls.run_id = p_run AND calls.call_id = p_call;
$$;
