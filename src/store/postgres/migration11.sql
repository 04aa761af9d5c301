-- Migration 11: what a command's new server process compiles (issue 22). Every command is a
-- new connection, so a new backend, which loaded PL/pgSQL and compiled resolve_item and
-- each table's guard at their first call: 1.3 ms for the language, 2-4 ms for
-- resolve_item, 0.2-0.4 ms per guard. Now a command of the store's owner calls no PL/pgSQL
-- unless it is refused:
--  * resolve_item and record_decision are plain SQL, their checks, their order and their
--    refusals' words the same; resolve_item's checks of a decision under a policy and its
--    naming of a role without one are functions of their own, so that only the one a call
--    needs is planned;
--  * each row guard fires only for a role that is not (a member of) the schema's owner, the
--    one role its function let through unchecked (the TRUNCATE guards are unchanged).
-- What another role may do, and each refusal's words, are unchanged.

-- Refuses, through refuse (PL/pgSQL, for its RAISE). A statement that names refuse loads
-- PL/pgSQL when its executor starts, whether or not it refuses; one that names this
-- function loads it only when it refuses (the SET keeps this function from being inlined,
-- which would name refuse again).
CREATE FUNCTION denied(what text) RETURNS void LANGUAGE sql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT refuse(what)
$$;

-- The checks of resolving tool call p_call of run p_run by p_by's decision under the rule
-- `rule`: that decision recorded as given, and an approval with its approvals counted.
-- Who checked the resolution, then: p_by, as a reviewer.
CREATE FUNCTION decided_by(p_run text, p_call text, p_by text, p_result text,
    p_resume_data text, p_digest text, rule jsonb)
RETURNS text[] LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT denied(format('no decision of %s resolves tool call %s of run %s',
            p_by, p_call, p_run))
        WHERE NOT EXISTS (SELECT FROM decisions
            WHERE run_id = p_run AND call_id = p_call AND reviewer = p_by
            AND resume_data IS NOT DISTINCT FROM p_resume_data
            AND result IS NOT DISTINCT FROM p_result AND digest IS NOT DISTINCT FROM p_digest);
    SELECT denied(format('tool call %s of run %s has %s of %s approvals',
            p_call, p_run, n.counted, rule ->> 'approvals'))
        FROM (SELECT (SELECT count(*) FROM decisions x JOIN reviewers v ON v.name = x.reviewer
                WHERE x.run_id = p_run AND x.call_id = p_call AND x.decision = 'approved'
                AND x.digest IS NOT DISTINCT FROM d.digest AND v.removed_at IS NULL
                AND v.created_at <= x.at AND (rule -> 'reviewers') ? x.reviewer) AS counted
            FROM decisions d
            WHERE d.run_id = p_run AND d.call_id = p_call AND d.reviewer = p_by
            AND d.decision = 'approved') n
        WHERE n.counted < coalesce((rule ->> 'approvals')::bigint, 1);
    SELECT ARRAY[p_by, 'reviewer']
$$;

-- Who the session is, for a resolution no policy governs by a role the store does not
-- vouch for: the reviewer mapped to its role, else the role.
CREATE FUNCTION session_checker() RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT coalesce(
        (SELECT ARRAY[name, 'reviewer'] FROM reviewers
            WHERE pg_role = session_user::text AND removed_at IS NULL ORDER BY name LIMIT 1),
        ARRAY[session_user::text, 'pg-role'])
$$;

-- rule_of without its SET, so that the planner inlines it into the statement that calls it
-- rather than planning its body at each call; it is immutable, names nothing but built-in
-- operators, and its callers' search paths (the store's functions', the program's) start
-- with the store's schema, in which only the owner creates.
CREATE OR REPLACE FUNCTION rule_of(policy text, kind text, tool text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN policy IS NULL THEN NULL
        WHEN kind = 'approval' AND (policy::jsonb -> 'tools') ? tool
            THEN policy::jsonb -> 'tools' -> tool
        ELSE NULLIF(policy::jsonb -> 'rule', 'null'::jsonb)
    END
$$;

-- The call is locked (and must be pending) before anything is checked; the statements of a
-- SQL function each see what committed before them, as PL/pgSQL's did.
CREATE OR REPLACE FUNCTION resolve_item(p_run text, p_call text, p_result text,
    p_resume_data text, p_by text, p_via text, p_checked_by text, p_checked_as text,
    p_approved_args text, p_digest text, p_at bigint)
RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT denied(format('tool call %s of run %s is not pending', p_call, p_run))
        WHERE NOT EXISTS (SELECT FROM calls
            WHERE run_id = p_run AND call_id = p_call AND state = 'pending' FOR UPDATE);
    UPDATE calls SET state = 'resolved', result = p_result, resume_data = p_resume_data,
        resolved_by = p_by, resolved_via = p_via, resolved_at = p_at, checked_by = k.c[1],
        checked_as = k.c[2], approved_args = p_approved_args, digest = p_digest
        FROM (SELECT CASE
                WHEN g.rule IS NOT NULL
                    THEN decided_by(p_run, p_call, p_by, p_result, p_resume_data, p_digest,
                        g.rule)
                WHEN owns(session_user) OR vouches(session_user)
                    THEN ARRAY[p_checked_by, p_checked_as]
                ELSE session_checker()
            END AS c
            FROM (SELECT rule_of(r.policy, x.kind, x.tool_name) AS rule
                FROM calls x JOIN runs r ON r.id = x.run_id
                WHERE x.run_id = p_run AND x.call_id = p_call) g) k
        WHERE calls.run_id = p_run AND calls.call_id = p_call;
$$;

DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('decisions', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''owner'')'),
        ('reviewers', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''owner'')'),
        ('policies', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''owner'')'),
        ('store_roles', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''owner'')'),
        ('sessions', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''serve'')'),
        ('sign_in_links', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''serve'')'),
        ('settings', 'INSERT OR UPDATE OR DELETE', 'guard_writes(''serve'')'),
        ('calls', 'INSERT OR UPDATE OR DELETE', 'guard_calls()'),
        ('runs', 'INSERT OR UPDATE', 'guard_runs()')) AS v(name, ops, fn)
    LOOP
        EXECUTE format('DROP TRIGGER guard ON %I', t.name);
        EXECUTE format('CREATE TRIGGER guard BEFORE %s ON %I FOR EACH ROW '
            'WHEN (NOT owns(current_user)) EXECUTE FUNCTION %s', t.ops, t.name, t.fn);
    END LOOP;
END
$$;

-- record_decision in plain SQL too (a reviewer's command loaded PL/pgSQL for it): the call
-- locked and pending, then the first of its refusals that applies, in PL/pgSQL's order and
-- words, then the decision.
CREATE OR REPLACE FUNCTION record_decision(p_run text, p_call text, p_reviewer text,
    p_decision text, p_digest text, p_resume_data text, p_result text, p_via text, p_at bigint)
RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT denied(format('tool call %s of run %s is not pending', p_call, p_run))
        WHERE NOT EXISTS (SELECT FROM calls
            WHERE run_id = p_run AND call_id = p_call AND state = 'pending' FOR UPDATE);
    SELECT denied(w.refusal) FROM (SELECT CASE
            WHEN g.rule IS NULL
                THEN format('no policy governs tool call %s of run %s', p_call, p_run)
            WHEN r.name IS NULL THEN format('%s is no reviewer of this store', p_reviewer)
            WHEN r.pg_role IS DISTINCT FROM session_user::text AND NOT vouches(session_user)
                THEN format('the role %s is not reviewer %s (their role is %s)',
                    session_user, p_reviewer, coalesce(r.pg_role, 'none'))
            WHEN NOT (g.rule -> 'reviewers') ? p_reviewer
                THEN format('reviewer %s may not decide tool call %s of run %s',
                    p_reviewer, p_call, p_run)
            WHEN NOT ((g.kind = 'question' AND p_decision = 'answered')
                OR (g.kind = 'plan' AND p_decision IN ('approved', 'rejected'))
                OR (g.kind = 'approval' AND p_decision IN ('approved', 'declined')))
                THEN format('a %s is not %s', g.kind, p_decision)
            WHEN p_decision IN ('approved', 'answered') AND g.started_as = 'reviewer'
                AND g.started_by = p_reviewer
                AND NOT coalesce((g.rule ->> 'allowSelf')::boolean, false)
                THEN format('reviewer %s started run %s and may not %s its items',
                    p_reviewer, p_run,
                    CASE p_decision WHEN 'answered' THEN 'answer' ELSE 'approve' END)
        END AS refusal
        FROM (SELECT rule_of(runs.policy, calls.kind, calls.tool_name) AS rule, calls.kind,
                runs.started_by, runs.started_as
            FROM calls JOIN runs ON runs.id = calls.run_id
            WHERE calls.run_id = p_run AND calls.call_id = p_call) g
        LEFT JOIN reviewers r ON r.name = p_reviewer AND r.removed_at IS NULL) w
        WHERE w.refusal IS NOT NULL;
    INSERT INTO decisions (run_id, call_id, reviewer, decision, digest, resume_data, result,
        via, at)
        VALUES (p_run, p_call, p_reviewer, p_decision, p_digest, p_resume_data, p_result,
            p_via, p_at);
$$;
