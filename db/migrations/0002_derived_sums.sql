-- fund-edge: sums made when the data is written, so that a request reads rows in proportion to its answer,
-- never to the fund's history. Both are exact (NUMERIC sums of NUMERIC columns keep the inputs' scale) and
-- are written by fund_derive() below, which the importer and the seeder call in their own transaction.

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

-- Makes the derived sums of fund p_fund exact again after its rows dated p_from or later were written,
-- deleted or restated (p_from NULL: the whole fund, after a replace). Rows dated before p_from are kept:
-- a running balance from p_from on starts from each account's latest balance before it.
CREATE FUNCTION fund_derive(p_fund text, p_from date) RETURNS void LANGUAGE sql AS $$
  DELETE FROM ledger_balances WHERE fund_id = p_fund AND (p_from IS NULL OR entry_date >= p_from);
  INSERT INTO ledger_balances (fund_id, account_code, entry_date, debit, credit)
  SELECT p_fund, d.account_code, d.entry_date,
         COALESCE(b.debit, 0) + SUM(d.debit) OVER w, COALESCE(b.credit, 0) + SUM(d.credit) OVER w
  FROM (
    SELECT l.account_code, l.entry_date, SUM(l.debit) AS debit, SUM(l.credit) AS credit FROM ledger_lines l
    WHERE l.fund_id = p_fund AND (p_from IS NULL OR l.entry_date >= p_from)
    GROUP BY l.account_code, l.entry_date) d
  LEFT JOIN LATERAL (
    SELECT x.debit, x.credit FROM ledger_balances x
    WHERE x.fund_id = p_fund AND x.account_code = d.account_code
    ORDER BY x.entry_date DESC LIMIT 1) b ON true
  WINDOW w AS (PARTITION BY d.account_code ORDER BY d.entry_date);

  DELETE FROM position_sums WHERE fund_id = p_fund AND (p_from IS NULL OR nav_date >= p_from);
  INSERT INTO position_sums (fund_id, nav_date, asset_class, negative, market_value)
  SELECT p_fund, p.nav_date, p.asset_class, p.market_value < 0, SUM(p.market_value) FROM positions p
  WHERE p.fund_id = p_fund AND p.book = 'live' AND (p_from IS NULL OR p.nav_date >= p_from)
  GROUP BY p.nav_date, p.asset_class, p.market_value < 0;
$$;

SELECT fund_derive(fund_id, NULL) FROM funds;
