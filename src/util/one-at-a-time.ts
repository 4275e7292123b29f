// Work on one key done one at a time, in the order asked, within this process: the languages of
// one in-place file (an .xcstrings catalog, docs/strings/xcstrings.md) are each read, written and
// renamed over it in turn, so that two written at once never lose each other.

const tails = new Map<string, Promise<unknown>>();

/** Runs `work` once every earlier work on `key` has ended (whether it threw or not). */
export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    // The last in line takes the key away: nothing is kept for files no longer written.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
