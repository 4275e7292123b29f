import { describe, expect, it } from 'vitest';
import { languageMismatch } from '../../src/qa/language.js';

// The language check's model (eld's database, about 80 MB once loaded) is loaded and run in a worker
// thread (issue 51): loaded on the run's own thread, it stalled every upload, answer and timer of the
// run while it loaded. What shows it without timing anything: the run's own heap does not take the
// model in (it did: about 28 MB on the first detection), and the detections are still right.

const ENGLISH =
  'This is an English sentence that is long enough for the detector to be sure about which language it is written in, and then some more words. '.repeat(
    3,
  );
const GERMAN =
  'Dies ist ein deutscher Satz, der lang genug ist, damit die Erkennung sicher sagen kann, in welcher Sprache er geschrieben ist, und noch ein paar Wörter mehr. '.repeat(
    3,
  );

describe('the language check', () => {
  it('loads its model off the run’s thread and still tells the languages apart', async () => {
    const before = process.memoryUsage().heapUsed;
    const found = await languageMismatch(ENGLISH, 'de', 'en');
    const grown = process.memoryUsage().heapUsed - before;
    expect(found).toEqual({ detected: 'en' });
    // The model's tables live in the worker's heap, not in this one.
    expect(grown).toBeLessThan(8 * 2 ** 20);
    expect(await languageMismatch(GERMAN, 'de', 'en')).toBeUndefined();
    expect(await languageMismatch(GERMAN, 'fr', 'en')).toEqual({ detected: 'de' });
    // Many checks at once each get their own answer.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) => languageMismatch(i % 2 ? ENGLISH : GERMAN, 'de', 'en')),
    );
    expect(many.filter((m) => m?.detected === 'en')).toHaveLength(10);
    expect(many.filter((m) => m === undefined)).toHaveLength(10);
  });
});
