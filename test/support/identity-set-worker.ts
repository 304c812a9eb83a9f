/**
 * A test-only Worker entry (never part of the shipped bundle: wrangler.toml's `main` is lib/worker.ts) that
 * compiles and loads identity sets with workerd's own engine, for test/e2e/identity-set-engines.test.ts: a
 * set the importer compiled in Node must be loaded in workerd only when workerd compiles the very same one.
 *
 * `POST /` with `{ values, stored }` (the values, and the text Node made of them with `identitySetText`)
 * answers `{ own, loaded, equal }`: the text workerd makes of the same values, whether it loads `stored`, and
 * whether what it loaded is field for field the set it compiles itself.
 */
import { identitySetText, loadIdentitySet } from '../../lib/identity-set-form.ts';
import { identitySet, type IdentitySet } from '../../lib/identity-set.ts';

/**
 * The Worker's Durable Object class, which wrangler.toml binds: from its own module, not the real entry, whose
 * evaluation would run the Worker's startup warm-ups here too.
 */
export { AtomicRecord } from '../../lib/atomic.ts';

/** Every field of a set as plain JSON (maps as their entries, in order), to compare two sets. */
function plain(set: IdentitySet): string {
  return JSON.stringify({
    ...set,
    children: set.children.map((m) => (m ? [...m] : null)),
    onlyWord: set.onlyWord.map((w) => w ?? null),
    fail: [...set.fail],
    longest: [...set.longest],
    asciiSlots: [...set.asciiSlots],
    asciiHashes: [...set.asciiHashes],
  });
}

export default {
  async fetch(request: Request): Promise<Response> {
    const { values, stored } = (await request.json()) as { values: string[]; stored: string };
    const own = await identitySetText(values);
    let loaded: IdentitySet | null = null;
    try {
      loaded = await loadIdentitySet(stored);
    } catch {
      // Refused: the reader compiles instead.
    }
    const equal = loaded !== null && plain(loaded) === plain(identitySet(values));
    return Response.json({ own, loaded: loaded !== null, equal });
  },
};
