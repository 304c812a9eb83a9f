-- fund-edge: VaR's moments, computed when the fund is imported or seeded instead of by every request. A
-- `get_value_at_risk` request reads one row here (one covariance per held asset) rather than every held
-- asset's closes over its window (500 assets × 1,001 closes for a 1,000-return window).
--
-- One row per method and window (every window the tool accepts), for one run: the latest usable run when
-- they were made. The texts are the analytics' own (lib/fund/analytics/var.ts, `String` of each IEEE
-- double), so the row is exactly the `varMoments` rows the request would compute. `basis` names the
-- arithmetic they were made with (the store compares it with its own); `covariances[i]` belongs to
-- `assets[i]`.
--
-- Moments are only ever missing, never stale: statement-level triggers on every table they are computed
-- from (positions, prices, and nav_runs, whose deletion takes positions with it) delete the fund's rows
-- whenever any statement writes those tables, whatever wrote it (the importer, the seeder, a test, a hand-
-- written UPDATE). The importer and the seeder then make them again in the same transaction, after their
-- writes; a request that finds none computes from the closes, as it does without this table. A TRUNCATE
-- names no fund: every fund's moments go.
CREATE TABLE var_moments (
  fund_id      text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  method       text NOT NULL CHECK (method IN ('sample', 'ewma')),
  window_days  integer NOT NULL,
  nav_date     date NOT NULL,
  basis        text NOT NULL,
  observations integer NOT NULL,
  variance     text NOT NULL,
  assets       text[] NOT NULL,
  covariances  text[] NOT NULL CHECK (cardinality(covariances) = cardinality(assets)),
  PRIMARY KEY (fund_id, method, window_days)
);

-- Forgets the moments of the funds p_funds. It first takes each fund's writer lock, the transaction-scoped
-- advisory lock the importer holds from its first statement and the writer of the moments takes before it
-- reads (operator/db/var-moments.ts), in a fixed order; the DELETE runs after the wait, in a snapshot that
-- sees what that writer committed. Without the lock, a write made while an import of the same fund was
-- computing its moments would delete none of them (still uncommitted, so unseen) and leave them stale.
CREATE FUNCTION var_moments_forget(p_funds text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('fund-edge import ' || f, 0))
  FROM (SELECT DISTINCT f FROM unnest(p_funds) AS u (f) ORDER BY f) x;
  DELETE FROM var_moments m WHERE m.fund_id = ANY(p_funds);
END $$;

-- The trigger functions: one per kind of statement, each forgetting the moments of the funds its transition
-- tables name.
CREATE FUNCTION var_moments_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM var_moments_forget(ARRAY(SELECT DISTINCT fund_id FROM new_rows));
  RETURN NULL;
END $$;

CREATE FUNCTION var_moments_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM var_moments_forget(ARRAY(SELECT fund_id FROM new_rows UNION SELECT fund_id FROM old_rows));
  RETURN NULL;
END $$;

CREATE FUNCTION var_moments_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM var_moments_forget(ARRAY(SELECT DISTINCT fund_id FROM old_rows));
  RETURN NULL;
END $$;

CREATE FUNCTION var_moments_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM var_moments_forget(ARRAY(SELECT fund_id FROM funds));
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['positions', 'prices', 'nav_runs'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION var_moments_after_insert()', t || '_var_moments_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION var_moments_after_update()', t || '_var_moments_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION var_moments_after_delete()', t || '_var_moments_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION var_moments_after_truncate()', t || '_var_moments_truncate', t);
  END LOOP;
END $$;
