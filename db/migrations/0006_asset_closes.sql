-- fund-edge: each asset's closes as two arrays (dates and the closes as doubles, oldest first), written by
-- fund_derive() with the other derived data. VaR reads the held assets' newest closes as array slices, one
-- row per asset, instead of one index probe per close (500 assets × 1,001 closes for a 1,000-return window).
-- The doubles are the nearest double of each NUMERIC close (`price::float8`), what VaR computes with; the
-- exact closes stay in `prices`.
CREATE TABLE asset_closes (
  fund_id text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  asset   text COLLATE "C" NOT NULL,
  dates   date[] NOT NULL,
  closes  float8[] NOT NULL,
  PRIMARY KEY (fund_id, asset)
);

-- fund_derive() as 0003 made it, and the assets' arrays: an asset's row is made again, from its whole
-- history, when it has a close dated p_from or later or its row reaches p_from (a restated or deleted close).
CREATE OR REPLACE FUNCTION fund_derive(p_fund text, p_from date) RETURNS void LANGUAGE sql AS $$
  DELETE FROM ledger_balances WHERE fund_id = p_fund AND entry_date >= COALESCE(p_from, '-infinity'::date);
  INSERT INTO ledger_balances (fund_id, account_code, entry_date, debit, credit)
  SELECT p_fund, d.account_code, d.entry_date,
         COALESCE(b.debit, 0) + SUM(d.debit) OVER w, COALESCE(b.credit, 0) + SUM(d.credit) OVER w
  FROM (
    SELECT l.account_code, l.entry_date, SUM(l.debit) AS debit, SUM(l.credit) AS credit FROM ledger_lines l
    WHERE l.fund_id = p_fund AND l.entry_date >= COALESCE(p_from, '-infinity'::date)
    GROUP BY l.account_code, l.entry_date) d
  LEFT JOIN (
    SELECT DISTINCT ON (x.account_code) x.account_code, x.debit, x.credit FROM ledger_balances x
    WHERE x.fund_id = p_fund AND p_from IS NOT NULL
    ORDER BY x.account_code, x.entry_date DESC) b ON b.account_code = d.account_code
  WINDOW w AS (PARTITION BY d.account_code ORDER BY d.entry_date);

  DELETE FROM position_sums WHERE fund_id = p_fund AND nav_date >= COALESCE(p_from, '-infinity'::date);
  INSERT INTO position_sums (fund_id, nav_date, asset_class, negative, market_value)
  SELECT p_fund, p.nav_date, p.asset_class, p.market_value < 0, SUM(p.market_value) FROM positions p
  WHERE p.fund_id = p_fund AND p.book = 'live' AND p.nav_date >= COALESCE(p_from, '-infinity'::date)
  GROUP BY p.nav_date, p.asset_class, p.market_value < 0;

  DELETE FROM asset_closes a WHERE a.fund_id = p_fund AND (
    p_from IS NULL OR a.dates[cardinality(a.dates)] >= p_from
    OR EXISTS (SELECT 1 FROM prices z WHERE z.fund_id = p_fund AND z.asset = a.asset AND z.price_date >= p_from));
  INSERT INTO asset_closes (fund_id, asset, dates, closes)
  SELECT p_fund, z.asset, array_agg(z.price_date ORDER BY z.price_date), array_agg(z.price::float8 ORDER BY z.price_date)
  FROM prices z
  WHERE z.fund_id = p_fund AND NOT EXISTS (SELECT 1 FROM asset_closes a WHERE a.fund_id = p_fund AND a.asset = z.asset)
  GROUP BY z.asset;
$$;

INSERT INTO asset_closes (fund_id, asset, dates, closes)
SELECT z.fund_id, z.asset, array_agg(z.price_date ORDER BY z.price_date), array_agg(z.price::float8 ORDER BY z.price_date)
FROM prices z GROUP BY z.fund_id, z.asset;
