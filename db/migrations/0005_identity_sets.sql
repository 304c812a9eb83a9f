-- fund-edge: each fund's identity set (every investor's identity values compiled for the redaction's scan,
-- lib/identity-set.ts) as text, compiled where the investors are written (the importer and the seeder:
-- operator/db/identity-sets.ts), so that an isolate's first request loads the set instead of compiling it.
--
-- A row is used only while it is current: the store sends it only when identity_version is the fund's
-- identity version now (fund_versions, which any write to investors changes) and format is the reader's
-- own (lib/identity-set-form.ts: the compiler's sources and the engine's Unicode data). Otherwise the
-- reader compiles the set from the investors, as it does without this table, so a write to investors that
-- does not store the set again costs a compile, never a stale set.
CREATE TABLE identity_sets (
  fund_id          text COLLATE "C" PRIMARY KEY REFERENCES funds ON DELETE CASCADE,
  identity_version text NOT NULL,
  format           text NOT NULL,
  compiled         text NOT NULL
);
