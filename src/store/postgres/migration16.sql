-- Migration 16: an agent's minimum policy (SPEC §15: `policy set NAME ... --for-agent
-- AGENT`, kept by the store's owner like every named policy). The store makes every run of
-- that agent at least as strict; here, a run that a role other than the owner creates is
-- refused unless its policy is: every rule of it (the run's and its tools') allows only
-- members of the minimum, needs at least as many approvals, and allows self-approval only
-- where the minimum does. A runner's role cannot open a gate by creating its run directly.
ALTER TABLE policies ADD COLUMN for_agent TEXT;
CREATE UNIQUE INDEX policies_for_agent ON policies (for_agent) WHERE for_agent IS NOT NULL;

CREATE FUNCTION meets_minimum(p_agent text, p_policy text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    floor jsonb;
    members text[];
    rule jsonb;
BEGIN
    SELECT policies.rule::jsonb INTO floor FROM policies WHERE for_agent = p_agent;
    IF NOT FOUND THEN
        RETURN true;
    END IF;
    IF p_policy IS NULL OR jsonb_typeof(p_policy::jsonb -> 'rule') IS DISTINCT FROM 'object' THEN
        RETURN false;
    END IF;
    SELECT coalesce(array_agg(r.name), '{}') INTO members FROM reviewers r
        WHERE r.removed_at IS NULL AND ((floor -> 'reviewers') ? r.name
            OR EXISTS (SELECT FROM jsonb_array_elements_text(floor -> 'reviewers') e
                WHERE e LIKE 'group:%' AND r.groups::jsonb ? substr(e, 7)));
    FOR rule IN SELECT p_policy::jsonb -> 'rule'
            UNION ALL SELECT value FROM jsonb_each(coalesce(p_policy::jsonb -> 'tools', '{}'))
    LOOP
        IF coalesce((rule ->> 'approvals')::int, 1) < coalesce((floor ->> 'approvals')::int, 1)
            OR (coalesce((rule ->> 'allowSelf')::boolean, false)
                AND NOT coalesce((floor ->> 'allowSelf')::boolean, false))
            OR EXISTS (SELECT FROM jsonb_array_elements_text(rule -> 'reviewers') x
                WHERE NOT x = ANY (members)) THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;

CREATE FUNCTION guard_minimum() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
BEGIN
    IF NOT meets_minimum(NEW.agent_id, NEW.policy) THEN
        PERFORM refuse(format('the role %s may not create run %s of agent %s under a policy weaker than the minimum the store keeps for it',
            current_user, NEW.id, NEW.agent_id));
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER minimum BEFORE INSERT ON runs FOR EACH ROW
    WHEN (NOT owns(current_user)) EXECUTE FUNCTION guard_minimum();
