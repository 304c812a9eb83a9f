-- fund-edge: data derived when the fund's rows are written, so that a request reads rows in proportion to its
-- answer, never to the fund's history. All of it is written by fund_derive() below, which the importer and the
-- seeder call in their own transaction. The sums are exact (NUMERIC sums of NUMERIC columns keep the inputs'
-- scale).

-- Each account's ledger lines dated on or before entry_date, summed: one row per account and date on which
-- the account has lines. A trial balance as of any date is the latest row per account on or before it.
CREATE TABLE ledger_balances (
  fund_id      text COLLATE "C" NOT NULL,
  account_code text COLLATE "C" NOT NULL,
  entry_date   date NOT NULL,
  debit        numeric NOT NULL,
  credit       numeric NOT NULL,
  PRIMARY KEY (fund_id, account_code, entry_date),
  FOREIGN KEY (fund_id, account_code) REFERENCES accounts ON DELETE CASCADE
);

-- Each run's live positions summed per asset class and sign (negative: market_value < 0): what exposure and
-- its series read, a handful of rows per run instead of every position.
CREATE TABLE position_sums (
  fund_id      text COLLATE "C" NOT NULL,
  nav_date     date NOT NULL,
  asset_class  text NOT NULL,
  negative     boolean NOT NULL,
  market_value numeric NOT NULL,
  PRIMARY KEY (fund_id, nav_date, asset_class, negative),
  FOREIGN KEY (fund_id, nav_date) REFERENCES nav_runs ON DELETE CASCADE
);

-- Each asset's closes as two arrays (dates and the closes as doubles, oldest first), written by
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

-- Makes the derived data of fund p_fund exact again after its rows dated p_from or later were written,
-- deleted or restated (p_from NULL: the whole fund, after a replace). Rows dated before p_from are kept:
-- a running balance from p_from on starts from each account's latest balance before it, found once per
-- account (a hash join: the rows deleted first stay in the index until the transaction ends, and walking past
-- them once per date was most of a 5-year fund's rebuild); the date bounds are written so that an index can
-- serve them. An asset's closes row is made again, from its whole history, when the asset has a close dated
-- p_from or later or its row reaches p_from (a restated or deleted close).
CREATE FUNCTION fund_derive(p_fund text, p_from date) RETURNS void LANGUAGE sql AS $$
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

SELECT fund_derive(fund_id, NULL) FROM funds;
