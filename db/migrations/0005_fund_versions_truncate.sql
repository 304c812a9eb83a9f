-- fund-edge: the versions of 0004_fund_versions.sql kept current by a TRUNCATE too. A TRUNCATE fires no row
-- or statement trigger of the other kinds and names no fund, so after one of the five tables is truncated
-- every fund's versions are made again (a handful of funds: a pass over their runs and investors each).
CREATE FUNCTION fund_versions_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fund_versions_refresh(f.fund_id) FROM funds f;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['funds', 'share_classes', 'fee_terms', 'nav_runs', 'investors'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION fund_versions_after_truncate()', t || '_versions_truncate', t);
  END LOOP;
END $$;
