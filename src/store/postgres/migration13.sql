-- Migration 13: a reviewer removed and added again decides anew (SPEC §14). Their decision
-- on an item from before they were added again no longer counts; record_decision now
-- replaces it with their new one (a decision is still recorded once per reviewer and item,
-- and one that counts is still never replaced: the insert refuses it). Its checks, their
-- order and their refusals' words are migration 11's.
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
    DELETE FROM decisions d USING reviewers r
        WHERE d.run_id = p_run AND d.call_id = p_call AND d.reviewer = p_reviewer
        AND r.name = p_reviewer AND r.removed_at IS NULL AND d.at < r.created_at;
    INSERT INTO decisions (run_id, call_id, reviewer, decision, digest, resume_data, result,
        via, at)
        VALUES (p_run, p_call, p_reviewer, p_decision, p_digest, p_resume_data, p_result,
            p_via, p_at);
$$;
