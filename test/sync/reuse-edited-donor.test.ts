import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncEvents } from '../../src/sync/events.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// A renamed or copied source whose old output a person edited (docs/sync.md, "Exactly once"): the
// edited output is no reuse donor (its bytes are not what its job wrote), so the new name is
// translated; a reuse that finds its donor changed falls back once to the ordinary decision. The
// work is bounded: counted in actions taken, never in time. Runs on both backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const CORRECTED = 'Von einer Person korrigiert.\n';
/** More actions than any right run takes for these two files: past it the run loops. */
const BOUND = 12;

/** Runs a sync, counting the actions the executor takes; stops counting (and fails) past BOUND. */
async function boundedSync(f: Fixture): Promise<{ actions: string[]; failed: unknown[] }> {
  const events = createSyncEvents();
  const actions: string[] = [];
  events.on('action', (a) => {
    actions.push(`${a.kind} ${'ref' in a ? a.ref.output : ''}`);
    if (actions.length > BOUND)
      throw new Error(`more than ${BOUND} actions: ${actions.slice(-4).join(', ')}`);
  });
  const s = await f.sync({ events });
  return { actions, failed: s.failed };
}

describe('a reuse whose donor output a person edited', () => {
  it.each([
    ['renamed', 'b.txt', true],
    ['copied into a subfolder', 'sub/a.txt', false],
  ])('%s source: translated once, the edit kept, the run ends', async (_, to, move) => {
    fx = await createFixture({ files: { 'a.txt': 'Hello world.\n' } });
    expect((await fx.sync()).failed).toEqual([]);
    fx.write('out/de/a.txt', CORRECTED);
    fx.write(`src/${to}`, 'Hello world.\n');
    if (move) fs.rmSync(path.join(fx.dir, 'src/a.txt'));

    const plan = JSON.parse((await runCliOn(fx, 'plan', '--json')).stdout);
    const mark = fx.mark();
    const run = await boundedSync(fx);
    expect(run.failed).toEqual([]);
    expect(run.actions.length).toBeLessThanOrEqual(4);
    // de: the edited output is no donor, so the new name is translated (one upload); fr: copied.
    expect(fx.uploads(mark)).toHaveLength(1);
    expect(fx.read('out/de/a.txt')).toBe(CORRECTED);
    expect(fx.read(`out/de/${to}`)).not.toBe(CORRECTED);
    expect(fx.read(`out/fr/${to}`)).toBe(fx.read('out/fr/a.txt'));
    // plan said so beforehand.
    const kinds = (plan.plan.actions as Array<{ kind: string; ref: { target: string } }>)
      .filter((a) => a.kind === 'translate' || a.kind === 'reuse')
      .map((a) => `${a.kind} ${a.ref.target}`)
      .sort();
    expect(kinds).toEqual(['reuse fr', 'translate de']);
  });

  it('a donor edited after the plan (while the run copies it): the copy refuses it, the unit falls back once', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Hello world.\n' } });
    expect((await fx.sync()).failed).toEqual([]);
    fx.write('src/sub/a.txt', 'Hello world.\n');

    const events = createSyncEvents();
    const actions: string[] = [];
    const f = fx;
    events.on('action', (a) => {
      actions.push(`${a.kind} ${'ref' in a ? a.ref.output : ''}`);
      if (actions.length > BOUND) throw new Error(`more than ${BOUND} actions`);
      // A reviewer saves the donor between the plan and the copy.
      if (a.kind === 'reuse' && a.ref.output === 'out/de/sub/a.txt') f.write('out/de/a.txt', CORRECTED);
    });
    const mark = fx.mark();
    expect((await fx.sync({ events })).failed).toEqual([]);
    // Planned as a copy, refused by the copy's check, then translated: once each.
    expect(actions.filter((a) => a.endsWith('out/de/sub/a.txt'))).toEqual([
      'reuse out/de/sub/a.txt',
      'translate out/de/sub/a.txt',
    ]);
    expect(fx.uploads(mark)).toHaveLength(1);
    expect(fx.read('out/de/a.txt')).toBe(CORRECTED);
    expect(fx.read('out/de/sub/a.txt')).not.toBe(CORRECTED);
  });
});
