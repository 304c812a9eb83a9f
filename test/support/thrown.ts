/** Runs `f`, expecting it to throw; returns what was thrown (fails the test if nothing was). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
