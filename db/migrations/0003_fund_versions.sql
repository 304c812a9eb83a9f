-- fund-edge: each fund's two versions, made when its rows are written instead of by every request. A request
-- reads one row here rather than digesting every run and every investor of the fund.
--
-- index_version: an MD5 of the fund's row, its share classes with their fee terms and its runs (each row's
--   text, in key order); equal versions, equal index, in any database.
-- identity_version: an MD5 of every investor's identity columns in id order; any corrected investor row
--   changes it, with or without a new run.
--
-- Statement-level triggers on the five tables they digest recompute the versions of each fund a statement
-- touched, in the statement's own transaction, whatever wrote it (the importer, the seeder, a hand-written
-- UPDATE). A statement that writes the same rows again (an import that changes nothing) leaves both as they
-- were. A TRUNCATE fires no trigger of the other kinds and names no fund, so after one every fund's versions
-- are made again (a handful of funds: a pass over their runs and investors each).
CREATE TABLE fund_versions (
  fund_id          text COLLATE "C" PRIMARY KEY REFERENCES funds ON DELETE CASCADE,
  index_version    text NOT NULL,
  identity_version text NOT NULL
);

-- Makes fund p_fund's versions current (nothing when the fund is gone). It locks the fund's versions row
-- first and only then digests the rows, in a snapshot taken after the lock is granted: a transaction that
-- waited for another writer of the fund (a correction during an import) sees what that one committed, instead
-- of writing a digest of what it saw before the wait over the other's.
CREATE FUNCTION fund_versions_refresh(p_fund text) RETURNS void LANGUAGE sql AS $$
  SELECT 1 FROM fund_versions WHERE fund_id = p_fund FOR UPDATE;
  INSERT INTO fund_versions (fund_id, index_version, identity_version)
  SELECT f.fund_id,
    'md5:' || md5(concat_ws(chr(30),
      (SELECT x::text FROM funds x WHERE x.fund_id = f.fund_id),
      (SELECT string_agg(s::text || chr(31) || t::text, chr(29) ORDER BY s.share_class_id)
        FROM share_classes s JOIN fee_terms t USING (fund_id, share_class_id) WHERE s.fund_id = f.fund_id),
      (SELECT string_agg(r::text, chr(29) ORDER BY r.nav_date) FROM nav_runs r WHERE r.fund_id = f.fund_id))),
    'md5:' || md5(COALESCE((
      SELECT string_agg(concat_ws(chr(31), i.investor_id, i.share_class_id, i.legal_name, i.email, i.tax_id, i.bank_account),
        chr(30) ORDER BY i.investor_id COLLATE "C")
      FROM investors i WHERE i.fund_id = f.fund_id), ''))
  FROM funds f WHERE f.fund_id = p_fund
  ON CONFLICT (fund_id) DO UPDATE
    SET index_version = EXCLUDED.index_version, identity_version = EXCLUDED.identity_version
    WHERE (fund_versions.index_version, fund_versions.identity_version)
      IS DISTINCT FROM (EXCLUDED.index_version, EXCLUDED.identity_version);
$$;

-- The trigger functions: one per kind of statement, each reading the funds named by its transition tables.
CREATE FUNCTION fund_versions_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fund_versions_refresh(d.fund_id) FROM (SELECT DISTINCT fund_id FROM new_rows) d;
  RETURN NULL;
END $$;

CREATE FUNCTION fund_versions_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fund_versions_refresh(d.fund_id)
  FROM (SELECT fund_id FROM new_rows UNION SELECT fund_id FROM old_rows) d;
  RETURN NULL;
END $$;

CREATE FUNCTION fund_versions_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fund_versions_refresh(d.fund_id) FROM (SELECT DISTINCT fund_id FROM old_rows) d;
  RETURN NULL;
END $$;

CREATE FUNCTION fund_versions_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fund_versions_refresh(f.fund_id) FROM funds f;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['funds', 'share_classes', 'fee_terms', 'nav_runs', 'investors'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION fund_versions_after_insert()', t || '_versions_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION fund_versions_after_update()', t || '_versions_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION fund_versions_after_delete()', t || '_versions_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION fund_versions_after_truncate()', t || '_versions_truncate', t);
  END LOOP;
END $$;

SELECT fund_versions_refresh(fund_id) FROM funds;
