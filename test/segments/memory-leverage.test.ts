import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';
import { segmentsMapping } from './helpers.js';
import { importInto } from './memory-helpers.js';

// The plan's leverage (docs/memory.md): the segments of its segment-path translations counted as a
// translation memory analysis counts them, per language, in `plan` and `plan --json`.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('plan: leverage of the memory', () => {
  it('counts new segments, repetitions in the run, the memory reviewed or imported and machine, and what remains', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()], billing: { price_per_million: 20, currency: 'EUR' } },
      files: { 'a.md': 'Alpha one.\n' },
    });
    await fx.sync();
    fx.write('src/b.md', 'Alpha one.\n\nImported line.\n\nFresh line.\n\nFresh line.\n');
    fx.write('src/c.md', 'Fresh line.\n');
    fx.write(
      'm.tmx',
      '<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>Imported line.</seg></tuv><tuv xml:lang="de-DE"><seg>Importierte Zeile.</seg></tuv></tu>\n</body></tmx>\n',
    );
    await importInto(fx, path.join(fx.dir, 'm.tmx'));

    const json = await runCliOn(fx, 'plan', '--json');
    expect(json.code).toBe(0);
    const leverage = (JSON.parse(json.stdout) as { price: { leverage: unknown } }).price.leverage;
    const de = {
      new: { segments: 1, characters: 11 },
      repeated: { segments: 2, characters: 22 },
      memory_reviewed: { segments: 1, characters: 14 },
      memory_machine: { segments: 1, characters: 10 },
      remaining: { characters: 11, cost: 0.00022 },
    };
    expect(leverage).toEqual({ total: de, by_target: { de } });

    const text = await runCliOn(fx, 'plan');
    expect(text.stdout).toContain(
      'de: 1 new (11 characters) · 2 repeated in this run (22 characters) · 1 from memory, reviewed or imported (14 characters) · 1 from memory, machine (10 characters); remaining 11 characters (< €0.01)',
    );
  });
});
