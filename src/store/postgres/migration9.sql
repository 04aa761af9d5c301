-- Migration 9 on PostgreSQL, after the columns both backends share (released migrations
-- are never edited: append a new one). The decisions table, the roles `store grant` let in
-- as an inbox (serve), and what keeps a policy (SPEC §14) against the store's other roles,
-- whatever their table privileges:
--  * triggers refuse every write to decisions, reviewers, policies and store_roles that is
--    not the owner's (a SECURITY DEFINER function of the store runs as the owner), every
--    write to sessions, sign-in links and settings that is neither the owner's nor a serve
--    role's, and, on calls and runs, every change a runner never makes (a call resolved or
--    re-opened, its arguments or decision columns rewritten, a run's policy or starter);
--  * two SECURITY DEFINER functions are the only way for other roles to decide:
--    record_decision checks the session's role (or the serve role that vouches for a
--    signed-in reviewer) against the run's policy, and resolve_item resolves a call only
--    as its recorded decisions allow (no policy: as anyone who may write the store).
-- The owner (and superusers, who are members of every role) are not bound.
CREATE TABLE decisions (
    run_id TEXT COLLATE "C" NOT NULL,
    call_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    decision TEXT NOT NULL,
    digest TEXT,
    resume_data TEXT NOT NULL,
    result TEXT,
    via TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (run_id, call_id, reviewer),
    FOREIGN KEY (run_id, call_id) REFERENCES calls (run_id, call_id) ON DELETE CASCADE
);
CREATE TABLE store_roles (
    role TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    granted_at BIGINT NOT NULL
);

-- Whether role r is (a member of) the schema's owner.
CREATE FUNCTION owns(r name) RETURNS boolean LANGUAGE sql STABLE
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT pg_has_role(r, (SELECT nspowner FROM pg_namespace WHERE nspname = 'mastra_ask'),
        'MEMBER')
$$;

-- Whether role r is the owner or a role `store grant --serve` let in.
CREATE FUNCTION vouches(r name) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT owns(r) OR EXISTS (SELECT 1 FROM store_roles WHERE role = r AND kind = 'serve')
$$;

-- The rule of a policy for an item: a command tool's own for its approvals, else the run's.
CREATE FUNCTION rule_of(policy text, kind text, tool text) RETURNS jsonb LANGUAGE sql
IMMUTABLE SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT CASE
        WHEN policy IS NULL THEN NULL
        WHEN kind = 'approval' AND (policy::jsonb -> 'tools') ? tool
            THEN policy::jsonb -> 'tools' -> tool
        ELSE NULLIF(policy::jsonb -> 'rule', 'null'::jsonb)
    END
$$;

CREATE FUNCTION refuse(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'MA403', MESSAGE = what;
END
$$;

CREATE FUNCTION record_decision(p_run text, p_call text, p_reviewer text, p_decision text,
    p_digest text, p_resume_data text, p_result text, p_via text, p_at bigint)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    c record;
    r record;
    rule jsonb;
BEGIN
    SELECT calls.state, calls.kind, calls.tool_name, runs.policy, runs.started_by,
        runs.started_as INTO c
        FROM calls JOIN runs ON runs.id = calls.run_id
        WHERE calls.run_id = p_run AND calls.call_id = p_call FOR UPDATE OF calls;
    IF NOT FOUND OR c.state <> 'pending' THEN
        PERFORM refuse(format('tool call %s of run %s is not pending', p_call, p_run));
    END IF;
    rule := rule_of(c.policy, c.kind, c.tool_name);
    IF rule IS NULL THEN
        PERFORM refuse(format('no policy governs tool call %s of run %s', p_call, p_run));
    END IF;
    SELECT * INTO r FROM reviewers WHERE name = p_reviewer AND removed_at IS NULL;
    IF NOT FOUND THEN
        PERFORM refuse(format('%s is no reviewer of this store', p_reviewer));
    END IF;
    IF r.pg_role IS DISTINCT FROM session_user::text AND NOT vouches(session_user) THEN
        PERFORM refuse(format('the role %s is not reviewer %s (their role is %s)',
            session_user, p_reviewer, coalesce(r.pg_role, 'none')));
    END IF;
    IF NOT (rule -> 'reviewers') ? p_reviewer THEN
        PERFORM refuse(format('reviewer %s may not decide tool call %s of run %s',
            p_reviewer, p_call, p_run));
    END IF;
    IF NOT ((c.kind = 'question' AND p_decision = 'answered')
        OR (c.kind = 'plan' AND p_decision IN ('approved', 'rejected'))
        OR (c.kind = 'approval' AND p_decision IN ('approved', 'declined'))) THEN
        PERFORM refuse(format('a %s is not %s', c.kind, p_decision));
    END IF;
    IF p_decision IN ('approved', 'answered') AND c.started_as = 'reviewer'
        AND c.started_by = p_reviewer
        AND NOT coalesce((rule ->> 'allowSelf')::boolean, false) THEN
        PERFORM refuse(format('reviewer %s started run %s and may not %s its items',
            p_reviewer, p_run, CASE p_decision WHEN 'answered' THEN 'answer' ELSE 'approve' END));
    END IF;
    INSERT INTO decisions (run_id, call_id, reviewer, decision, digest, resume_data, result,
        via, at)
        VALUES (p_run, p_call, p_reviewer, p_decision, p_digest, p_resume_data, p_result,
            p_via, p_at);
END
$$;

CREATE FUNCTION resolve_item(p_run text, p_call text, p_result text, p_resume_data text,
    p_by text, p_via text, p_checked_by text, p_checked_as text, p_approved_args text,
    p_digest text, p_at bigint)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    c record;
    d record;
    rule jsonb;
    counted bigint;
    who text := p_checked_by;
    what text := p_checked_as;
BEGIN
    SELECT calls.state, calls.kind, calls.tool_name, runs.policy INTO c
        FROM calls JOIN runs ON runs.id = calls.run_id
        WHERE calls.run_id = p_run AND calls.call_id = p_call FOR UPDATE OF calls;
    IF NOT FOUND OR c.state <> 'pending' THEN
        PERFORM refuse(format('tool call %s of run %s is not pending', p_call, p_run));
    END IF;
    rule := rule_of(c.policy, c.kind, c.tool_name);
    IF rule IS NOT NULL THEN
        SELECT * INTO d FROM decisions
            WHERE run_id = p_run AND call_id = p_call AND reviewer = p_by;
        IF NOT FOUND OR d.resume_data IS DISTINCT FROM p_resume_data
            OR d.result IS DISTINCT FROM p_result OR d.digest IS DISTINCT FROM p_digest THEN
            PERFORM refuse(format('no decision of %s resolves tool call %s of run %s',
                p_by, p_call, p_run));
        END IF;
        IF d.decision = 'approved' THEN
            SELECT count(*) INTO counted FROM decisions x JOIN reviewers v ON v.name = x.reviewer
                WHERE x.run_id = p_run AND x.call_id = p_call AND x.decision = 'approved'
                AND x.digest IS NOT DISTINCT FROM d.digest AND v.removed_at IS NULL
                AND v.created_at <= x.at AND (rule -> 'reviewers') ? x.reviewer;
            IF counted < coalesce((rule ->> 'approvals')::bigint, 1) THEN
                PERFORM refuse(format('tool call %s of run %s has %s of %s approvals',
                    p_call, p_run, counted, rule ->> 'approvals'));
            END IF;
        END IF;
        who := p_by;
        what := 'reviewer';
    ELSIF NOT vouches(session_user) THEN
        SELECT name INTO who FROM reviewers
            WHERE pg_role = session_user::text AND removed_at IS NULL ORDER BY name LIMIT 1;
        IF FOUND THEN
            what := 'reviewer';
        ELSE
            who := session_user::text;
            what := 'pg-role';
        END IF;
    END IF;
    UPDATE calls SET state = 'resolved', result = p_result, resume_data = p_resume_data,
        resolved_by = p_by, resolved_via = p_via, resolved_at = p_at, checked_by = who,
        checked_as = what, approved_args = p_approved_args, digest = p_digest
        WHERE run_id = p_run AND call_id = p_call;
END
$$;

-- Writes only the owner makes (the store's functions run as the owner).
CREATE FUNCTION guard_owner() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
BEGIN
    IF NOT owns(current_user) THEN
        PERFORM refuse(format('the role %s may not write %s: only the store''s owner does',
            current_user, TG_TABLE_NAME));
    END IF;
    IF TG_LEVEL = 'STATEMENT' THEN RETURN NULL; END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END
$$;

-- Writes only the owner and the inbox (serve) make.
CREATE FUNCTION guard_serve() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
BEGIN
    IF NOT vouches(current_user) THEN
        PERFORM refuse(format('the role %s may not write %s: only the store''s owner and its serve roles do',
            current_user, TG_TABLE_NAME));
    END IF;
    IF TG_LEVEL = 'STATEMENT' THEN RETURN NULL; END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END
$$;

-- What a runner may do to calls: insert items and results, record where a tool runs and
-- what it gave, close items as cancelled or expired, escalate them, remove running calls.
-- Resolving, re-opening or rewriting an item is the functions' (the owner's).
CREATE FUNCTION guard_calls() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
BEGIN
    IF owns(current_user) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.state NOT IN ('pending', 'done', 'running') OR NEW.resume_data IS NOT NULL
            OR NEW.resolved_by IS NOT NULL OR NEW.resolved_via IS NOT NULL
            OR NEW.checked_by IS NOT NULL OR NEW.checked_as IS NOT NULL
            OR NEW.approved_args IS NOT NULL OR NEW.digest IS NOT NULL THEN
            PERFORM refuse(format('the role %s may not store a decided call: decisions go through the store''s functions',
                current_user));
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF OLD.state <> 'running' THEN
            PERFORM refuse(format('the role %s may not delete tool call %s', current_user,
                OLD.call_id));
        END IF;
        RETURN OLD;
    END IF;
    IF (NEW.state IS DISTINCT FROM OLD.state
            AND NOT (OLD.state = 'pending' AND NEW.state IN ('cancelled', 'expired')))
        OR NEW.resume_data IS DISTINCT FROM OLD.resume_data
        OR NEW.resolved_by IS DISTINCT FROM OLD.resolved_by
        OR NEW.resolved_via IS DISTINCT FROM OLD.resolved_via
        OR NEW.checked_by IS DISTINCT FROM OLD.checked_by
        OR NEW.checked_as IS DISTINCT FROM OLD.checked_as
        OR NEW.approved_args IS DISTINCT FROM OLD.approved_args
        OR NEW.digest IS DISTINCT FROM OLD.digest
        OR NEW.args IS DISTINCT FROM OLD.args OR NEW.tool_name IS DISTINCT FROM OLD.tool_name
        OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.payload IS DISTINCT FROM OLD.payload
        OR NEW.run_id IS DISTINCT FROM OLD.run_id OR NEW.call_id IS DISTINCT FROM OLD.call_id
        OR NEW.step IS DISTINCT FROM OLD.step THEN
        PERFORM refuse(format('the role %s may not resolve or rewrite tool call %s: decisions go through the store''s functions',
            current_user, OLD.call_id));
    END IF;
    RETURN NEW;
END
$$;

-- A run's policy and starter are set once, at its start; who starts it is what the session
-- is (the reviewer mapped to its role, else the role), whatever another role claims.
CREATE FUNCTION guard_runs() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    me text;
BEGIN
    IF owns(current_user) THEN RETURN NEW; END IF;
    IF TG_OP = 'INSERT' THEN
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
    RETURN NEW;
END
$$;

CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON decisions
    FOR EACH ROW EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON decisions
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON reviewers
    FOR EACH ROW EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON reviewers
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON policies
    FOR EACH ROW EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON policies
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON store_roles
    FOR EACH ROW EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON store_roles
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON sign_in_links
    FOR EACH ROW EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON sign_in_links
    FOR EACH STATEMENT EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON settings
    FOR EACH ROW EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION guard_serve();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON calls
    FOR EACH ROW EXECUTE FUNCTION guard_calls();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON calls
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
CREATE TRIGGER guard BEFORE INSERT OR UPDATE ON runs
    FOR EACH ROW EXECUTE FUNCTION guard_runs();
CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION guard_owner();
