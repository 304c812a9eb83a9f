-- fund-edge: the fund data the service reads (lib/fund/rows.ts gives each row's meaning).
-- Money and quantities are NUMERIC without a fixed scale, so a value keeps the scale it was written
-- with ('1250000.00' reads back as '1250000.00'). Dates are DATE (UTC). Every table is keyed by fund_id.
-- Identifier columns use the "C" collation: byte order, the order the service sorts in, on any server locale.
-- Indexes: every query of lib/fund/postgres-store.ts is served by a primary key or an index below.

CREATE TABLE funds (
  fund_id             text COLLATE "C" PRIMARY KEY,
  name                text NOT NULL,
  base_currency       text NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
  inception_date      date NOT NULL,
  aum_target          numeric NOT NULL CHECK (aum_target >= 0),
  recon_tolerance_bps numeric NOT NULL CHECK (recon_tolerance_bps >= 0)
);

CREATE TABLE share_classes (
  fund_id        text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  share_class_id text COLLATE "C" NOT NULL,
  name           text NOT NULL,
  PRIMARY KEY (fund_id, share_class_id)
);

-- Fee terms of a share class: rates in percent per year.
CREATE TABLE fee_terms (
  fund_id         text COLLATE "C" NOT NULL,
  share_class_id  text COLLATE "C" NOT NULL,
  mgmt_fee_pct    numeric NOT NULL CHECK (mgmt_fee_pct >= 0),
  perf_fee_pct    numeric NOT NULL CHECK (perf_fee_pct >= 0),
  hurdle_pct      numeric,
  hurdle_type     text CHECK (hurdle_type IN ('hard', 'soft')),
  has_hwm         boolean NOT NULL,
  crystallization text NOT NULL CHECK (crystallization IN ('annual', 'quarterly')),
  PRIMARY KEY (fund_id, share_class_id),
  FOREIGN KEY (fund_id, share_class_id) REFERENCES share_classes ON DELETE CASCADE,
  CHECK ((hurdle_pct IS NULL) = (hurdle_type IS NULL))
);

-- One daily shadow-NAV run and its reconciliation against the administrator's NAV.
CREATE TABLE nav_runs (
  fund_id      text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  nav_date     date NOT NULL,
  status       text NOT NULL CHECK (status IN ('complete', 'partial', 'failed')),
  shadow_nav   numeric,
  admin_nav    numeric,
  recon_status text CHECK (recon_status IN ('matched', 'break')),
  net_flows    numeric NOT NULL,
  PRIMARY KEY (fund_id, nav_date)
);

-- Positions of each run's snapshot. Paper-book rows live here too and are never selected.
CREATE TABLE positions (
  fund_id      text COLLATE "C" NOT NULL,
  nav_date     date NOT NULL,
  book         text NOT NULL CHECK (book IN ('live', 'paper')),
  asset        text COLLATE "C" NOT NULL,
  venue        text COLLATE "C" NOT NULL,
  asset_class  text NOT NULL,
  source_type  text NOT NULL,
  quantity     numeric NOT NULL,
  price        numeric NOT NULL,
  market_value numeric NOT NULL,
  PRIMARY KEY (fund_id, nav_date, book, asset, venue),
  FOREIGN KEY (fund_id, nav_date) REFERENCES nav_runs ON DELETE CASCADE
);

CREATE TABLE prices (
  fund_id    text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  asset      text COLLATE "C" NOT NULL,
  price_date date NOT NULL,
  price      numeric NOT NULL,
  PRIMARY KEY (fund_id, asset, price_date)
);

CREATE TABLE accounts (
  fund_id text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  code    text COLLATE "C" NOT NULL,
  name    text NOT NULL,
  type    text NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'income', 'expense')),
  role    text NOT NULL CHECK (role IN ('fee_expense', 'operating_expense', 'capital_contributions', 'capital_withdrawals', 'other')),
  PRIMARY KEY (fund_id, code)
);

-- Double-entry journal lines. The memo may name an investor; it is never selected.
CREATE TABLE ledger_lines (
  fund_id      text COLLATE "C" NOT NULL,
  entry_id     text COLLATE "C" NOT NULL,
  line_no      integer NOT NULL,
  entry_date   date NOT NULL,
  account_code text COLLATE "C" NOT NULL,
  asset        text COLLATE "C",
  venue        text COLLATE "C",
  debit        numeric NOT NULL CHECK (debit >= 0),
  credit       numeric NOT NULL CHECK (credit >= 0),
  memo         text NOT NULL DEFAULT '',
  PRIMARY KEY (fund_id, entry_id, line_no),
  FOREIGN KEY (fund_id, account_code) REFERENCES accounts ON DELETE CASCADE
);
CREATE INDEX ledger_lines_by_date ON ledger_lines (fund_id, entry_date, entry_id, line_no);

-- Investors: the only table with personal data (names, e-mails, tax ids, bank accounts).
CREATE TABLE investors (
  fund_id        text COLLATE "C" NOT NULL,
  investor_id    text COLLATE "C" NOT NULL,
  share_class_id text COLLATE "C" NOT NULL,
  legal_name     text NOT NULL,
  email          text NOT NULL,
  tax_id         text NOT NULL,
  bank_account   text NOT NULL,
  PRIMARY KEY (fund_id, investor_id),
  FOREIGN KEY (fund_id, share_class_id) REFERENCES share_classes ON DELETE CASCADE
);

-- Capital accounts at each complete run, cumulative since inception.
CREATE TABLE capital_accounts (
  fund_id        text COLLATE "C" NOT NULL,
  nav_date       date NOT NULL,
  investor_id    text COLLATE "C" NOT NULL,
  capital        numeric NOT NULL,
  contributions  numeric NOT NULL,
  withdrawals    numeric NOT NULL,
  pnl_allocation numeric NOT NULL,
  mgmt_fee       numeric NOT NULL,
  perf_fee       numeric NOT NULL,
  PRIMARY KEY (fund_id, nav_date, investor_id),
  FOREIGN KEY (fund_id, investor_id) REFERENCES investors ON DELETE CASCADE
);

CREATE TABLE expenses (
  fund_id      text COLLATE "C" NOT NULL REFERENCES funds ON DELETE CASCADE,
  expense_id   text COLLATE "C" NOT NULL,
  expense_date date NOT NULL,
  category     text NOT NULL,
  description  text NOT NULL,
  amount       numeric NOT NULL,
  status       text NOT NULL CHECK (status IN ('accrued', 'paid')),
  paid_date    date,
  PRIMARY KEY (fund_id, expense_id)
);
CREATE INDEX expenses_newest_first ON expenses (fund_id, expense_date DESC, expense_id DESC);
