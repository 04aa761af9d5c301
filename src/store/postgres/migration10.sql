-- Migration 10: the two guards of migration 9 for the tables only some roles write
-- (guard_owner: the owner alone; guard_serve: the owner and its serve roles) were the same
-- function twice. They are one now, told by its trigger argument which roles may write;
-- what each table allows, and each refusal's words, are unchanged.
CREATE FUNCTION guard_writes() RETURNS trigger LANGUAGE plpgsql
SET search_path = mastra_ask, pg_catalog, pg_temp AS $$
DECLARE
    serve boolean := TG_ARGV[0] = 'serve';
BEGIN
    IF serve AND NOT vouches(current_user) THEN
        PERFORM refuse(format('the role %s may not write %s: only the store''s owner and its serve roles do',
            current_user, TG_TABLE_NAME));
    ELSIF NOT serve AND NOT owns(current_user) THEN
        PERFORM refuse(format('the role %s may not write %s: only the store''s owner does',
            current_user, TG_TABLE_NAME));
    END IF;
    IF TG_LEVEL = 'STATEMENT' THEN RETURN NULL; END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END
$$;

DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('decisions', 'owner', true), ('reviewers', 'owner', true), ('policies', 'owner', true),
        ('store_roles', 'owner', true), ('sessions', 'serve', true),
        ('sign_in_links', 'serve', true), ('settings', 'serve', true),
        ('calls', 'owner', false), ('runs', 'owner', false)) AS v(name, writer, rows)
    LOOP
        IF t.rows THEN
            EXECUTE format('DROP TRIGGER guard ON %I', t.name);
            EXECUTE format('CREATE TRIGGER guard BEFORE INSERT OR UPDATE OR DELETE ON %I '
                'FOR EACH ROW EXECUTE FUNCTION guard_writes(%L)', t.name, t.writer);
        END IF;
        EXECUTE format('DROP TRIGGER guard_truncate ON %I', t.name);
        EXECUTE format('CREATE TRIGGER guard_truncate BEFORE TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION guard_writes(%L)', t.name, t.writer);
    END LOOP;
END
$$;

DROP FUNCTION guard_owner();
DROP FUNCTION guard_serve();
