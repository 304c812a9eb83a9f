-- fund-edge: fund_versions_refresh() as 0004 made it, safe when two transactions write one fund at once. It
-- now locks the fund's versions row first, and only then digests the rows, in a snapshot taken after the lock
-- is granted: a transaction that waited for another writer of the fund (a correction during an import) sees
-- what that one committed. Before, it digested the rows in a snapshot taken before the wait and then wrote that
-- digest over the other's, so the stored index version could miss a committed run until the next write.
CREATE OR REPLACE FUNCTION fund_versions_refresh(p_fund text) RETURNS void LANGUAGE sql AS $$
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
