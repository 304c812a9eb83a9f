/**
 * A stored identity set across engines (docs/fund-data.md#what-the-scan-costs): the importer compiles a
 * fund's set in Node and the Worker loads it in workerd, whose Unicode data differ (workerd's bundled here
 * does not know Unicode 17's letters, which Node 22 does). In workerd itself (test/support/identity-set-worker.ts),
 * for values of ASCII, accents, scripts without spaces, full-width forms and letters of recent Unicode
 * versions, proves that a set Node compiled is loaded exactly when workerd compiles the very same text, and
 * then is field for field workerd's own set; and that names in long-assigned scripts are loaded, so that a
 * real fund's set is not compiled again in every isolate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identitySetText } from '../../lib/identity-set-form.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-identity-engines-'));
let worker: TestWorker;

beforeAll(async () => {
  worker = await startWorker(persistDir, {}, 'none', { entrypoint: 'test/support/identity-set-worker.ts' });
}, 60_000);
afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** What workerd does with the set Node compiled of `values`. */
async function inWorkerd(values: string[]): Promise<{ node: string; own: string; loaded: boolean; equal: boolean }> {
  const node = await identitySetText(values);
  const res = await fetch(worker.base, { method: 'POST', body: JSON.stringify({ values, stored: node }) });
  expect(res.status).toBe(200);
  return { node, ...((await res.json()) as { own: string; loaded: boolean; equal: boolean }) };
}

const LONG_ASSIGNED = {
  ascii: ['Margaret Okafor', 'inv-00042@example.net', '078-05-1120', 'GB29NWBK60161331926819', 'INV-00042'],
  accents: ['Zoë Ünal', 'Seán Ó Briain', 'Jean-Pierre Dupont de la Tour', 'Müller-Lüdenscheidt GmbH', 'Ægir Þórsson'],
  spaceless: ['王小明', '山田 太郎', '김민준', 'สมชาย ใจดี'],
  compatibility: ['ＯＫＡＦＯＲ', 'ﾀﾅｶ ﾀﾛｳ', 'ﬁnance Ltd', '٠٧٨٦٥٩٧٠٣'],
  homoglyphs: ['Mаrgaret Okafor', 'Αθηνά Παππά', 'Марʼяна Іванова'],
};

describe('a set compiled in Node, in workerd', () => {
  it.each(Object.entries(LONG_ASSIGNED))('%s: loaded, and the same set workerd compiles', async (_, values) => {
    const r = await inWorkerd(values);
    expect(r.own).toBe(r.node);
    expect(r.loaded).toBe(true);
    expect(r.equal).toBe(true);
  });

  it('letters of recent Unicode versions: loaded only if workerd compiles the same text, never otherwise', async () => {
    // Garay, Todhri, Sidetic and Tolong Siki letters (Unicode 16 and 17) in a name, beside ones workerd knows.
    for (const name of ['\u{10D50}\u{10D51} Okafor', '\u{105C0}\u{105C1}', 'Zoë \u{10940}\u{10941}', '\u{11DB0}\u{11DB1} 王']) {
      const r = await inWorkerd([name, 'inv-1@example.net']);
      expect(r.loaded, name).toBe(r.own === r.node);
      expect(r.equal, name).toBe(r.loaded);
    }
  });
});
