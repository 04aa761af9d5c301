-- Migration 14: what a decision and a resolution say, kept for whoever reads them next
-- (SPEC §14, §14.1):
--  * an approval with changes keeps the arguments it approved with its decision
--    (decisions.args, the canonical JSON its digest is of), so that the reviewers who
--    decide after it see what they would approve with it; record_decision takes them
--    (p_args, last and optional) and refuses arguments its digest is not of, or on anything
--    but an approval's approval: a role records only the arguments it approved;
--  * where resolve_item records who the session is in place of the name it was told
--    (migration 12: no policy, a role neither the owner nor a serve role), that name,
--    typed with --as, is kept apart as a claim (calls.claim, p_claim, last and optional),
--    never as who resolved the item; NULL where it is that identity;
--  * a call's claim is written by resolve_item alone (guard_calls, as for checked_by).
-- Every check of migrations 9 to 13, its order and its refusal's words are unchanged.

ALTER TABLE decisions ADD COLUMN args TEXT;
ALTER TABLE calls ADD COLUMN claim TEXT;

-- Migration 9's, with the claim among what only the store's functions write.
CREATE OR REPLACE FUNCTION guard_calls() RETURNS trigger LANGUAGE plpgsql
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
            OR NEW.approved_args IS NOT NULL OR NEW.digest IS NOT NULL
            OR NEW.claim IS NOT NULL THEN
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
        OR NEW.claim IS DISTINCT FROM OLD.claim
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

-- Migration 13's, with the arguments an approval with changes approved: refused unless it
-- approves an approval and p_digest is theirs (SHA-256 of the tool's name, a newline and
-- this text, as the program digests the canonical JSON of the arguments).
DROP FUNCTION record_decision(text, text, text, text, text, text, text, text, bigint);
CREATE FUNCTION record_decision(p_run text, p_call text, p_reviewer text,
    p_decision text, p_digest text, p_resume_data text, p_result text, p_via text, p_at bigint,
    p_args text DEFAULT NULL)
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
            WHEN p_args IS NOT NULL AND (p_args::jsonb IS NULL
                OR g.kind <> 'approval' OR p_decision <> 'approved'
                OR p_digest IS DISTINCT FROM encode(sha256(convert_to(
                    g.tool_name || E'\n' || p_args, 'UTF8')), 'hex'))
                THEN format('the arguments given are not those this decision on tool call %s of run %s approves',
                    p_call, p_run)
        END AS refusal
        FROM (SELECT rule_of(runs.policy, calls.kind, calls.tool_name) AS rule, calls.kind,
                calls.tool_name, runs.started_by, runs.started_as
            FROM calls JOIN runs ON runs.id = calls.run_id
            WHERE calls.run_id = p_run AND calls.call_id = p_call) g
        LEFT JOIN reviewers r ON r.name = p_reviewer AND r.removed_at IS NULL) w
        WHERE w.refusal IS NOT NULL;
    DELETE FROM decisions d USING reviewers r
        WHERE d.run_id = p_run AND d.call_id = p_call AND d.reviewer = p_reviewer
        AND r.name = p_reviewer AND r.removed_at IS NULL AND d.at < r.created_at;
    INSERT INTO decisions (run_id, call_id, reviewer, decision, digest, resume_data, result,
        via, at, args)
        VALUES (p_run, p_call, p_reviewer, p_decision, p_digest, p_resume_data, p_result,
            p_via, p_at, p_args);
$$;

-- Migration 12's, with the claim: where the session is recorded in place of p_by, p_claim
-- (the name typed with --as, if any) is kept unless it is who the session is; elsewhere
-- no claim is kept (the owner's and a serve role's p_by is recorded as given; under a
-- policy --as is refused, and the decision's reviewer is recorded).
DROP FUNCTION resolve_item(text, text, text, text, text, text, text, text, text, text, bigint);
CREATE FUNCTION resolve_item(p_run text, p_call text, p_result text,
    p_resume_data text, p_by text, p_via text, p_checked_by text, p_checked_as text,
    p_approved_args text, p_digest text, p_at bigint, p_claim text DEFAULT NULL)
RETURNS void LANGUAGE sql SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
    SELECT denied(format('tool call %s of run %s is not pending', p_call, p_run))
        WHERE NOT EXISTS (SELECT FROM calls
            WHERE run_id = p_run AND call_id = p_call AND state = 'pending' FOR UPDATE);
    UPDATE calls SET state = 'resolved', result = p_result, resume_data = p_resume_data,
        resolved_by = k.c[3], resolved_via = k.c[4], resolved_at = p_at, checked_by = k.c[1],
        checked_as = k.c[2], approved_args = p_approved_args, digest = p_digest,
        claim = k.c[5]
        FROM (SELECT CASE
                WHEN g.rule IS NOT NULL
                    THEN decided_by(p_run, p_call, p_by, p_result, p_resume_data, p_digest,
                        g.rule) || ARRAY[p_by, coalesce((SELECT via FROM decisions
                            WHERE run_id = p_run AND call_id = p_call AND reviewer = p_by),
                        p_via), NULL]
                WHEN owns(session_user) OR vouches(session_user)
                    THEN ARRAY[p_checked_by, p_checked_as, p_by, p_via, NULL]
                ELSE (SELECT s.c || ARRAY[s.c[1], p_via, NULLIF(p_claim, s.c[1])]
                    FROM session_checker() AS s(c))
            END AS c
            FROM (SELECT rule_of(r.policy, x.kind, x.tool_name) AS rule
                FROM calls x JOIN runs r ON r.id = x.run_id
                WHERE x.run_id = p_run AND x.call_id = p_call) g) k
        WHERE calls.run_id = p_run AND calls.call_id = p_call;
$$;
