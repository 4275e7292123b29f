import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, failedUnits, uploadedUnits, type Fixture } from './fixture.js';

// `sync --retranslate all` buys every output again, the ones whose last translation failed the
// output checks (docs/qa.md) included: a user who asks for all expects all. Without it (and without
// --retry-failed-qa) such an output waits, as before.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('--retranslate all and outputs that failed the checks', () => {
  it('buys them again with the others and delivers them', async () => {
    fx = await createFixture({
      // The service answers b.txt untranslated once: its output fails the checks (quarantined).
      service: { faults: [{ badOutput: 'untranslated', badOutputFor: 'b.txt', badOutputs: 1 }] },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      files: { 'a.txt': 'The first document.\n', 'b.txt': 'The second document.\n' },
    });
    const first = await fx.sync();
    expect(failedUnits(first)).toEqual(['b.txt -> de']);
    expect(fx.exists('out/de/b.txt')).toBe(false);

    // Not bought again by itself.
    let mark = fx.mark();
    const again = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual([]);
    expect(again.failed.map((f) => f.kind)).toEqual(['qa-failed']);

    // The plan of --retranslate all prices both, and the run buys both.
    const planned = await fx.sync({ dryRun: true, retranslate: 'all' });
    expect(planned.translated).toBe(2);
    mark = fx.mark();
    const all = await fx.sync({ retranslate: 'all' });
    expect(uploadedUnits(fx, mark)).toEqual(['a.txt:DE', 'b.txt:DE']);
    expect(all.failed).toEqual([]);
    expect(all.translated).toBe(2);
    expect(fx.read('out/de/b.txt')).not.toBe('The second document.\n');
  }, 60_000);
});
