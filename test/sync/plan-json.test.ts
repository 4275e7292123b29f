import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncEvents } from '../../src/sync/events.js';
import type { Plan, PlannedAction } from '../../src/sync/plan/types.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, defaultManifest, type Fixture } from './fixture.js';

// `locsync plan --json` prints the planned actions as data, and `sync` carries out exactly those
// actions for the same inputs: the plan is not a second opinion on what sync does.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY };

/** An action as both sides must agree on it (the order of work on different outputs may differ). */
const key = (a: PlannedAction): string =>
  a.kind === 'forget'
    ? `forget ${a.mapping}/${a.file}`
    : `${a.kind} ${a.ref.target} ${a.ref.output} ${JSON.stringify(a)}`;

describe('plan --json and sync', () => {
  it('sync executes exactly the actions plan --json printed', async () => {
    fx = await createFixture({
      files: { 'keep.txt': 'Unchanged.\n', 'edit.txt': 'Before the edit.\n', 'gone.txt': 'Deleted later.\n' },
    });
    fs.writeFileSync(
      fx.manifestPath,
      stringify({ ...defaultManifest(fx.service.url), on_source_delete: 'delete' }),
    );
    const first = await fx.sync();
    expect(first.failed).toEqual([]);

    // New work of every kind: an edit, a new file, two copies of new content, a copy of a done
    // translation, a deleted source.
    fx.write('src/edit.txt', 'After the edit.\n');
    fx.write('src/new.txt', 'Brand new.\n');
    fx.write('src/twin-a.txt', 'Twins.\n');
    fx.write('src/twin-b.txt', 'Twins.\n');
    fx.write('src/copy-of-keep.txt', 'Unchanged.\n');
    fs.rmSync(path.join(fx.src, 'gone.txt'));

    const printed = await runCli(['plan', '-c', fx.manifestPath, '--json'], { env, timeoutMs: 120_000 });
    expect(printed.code, printed.stderr).toBe(0);
    const plan = (JSON.parse(printed.stdout) as { plan: Plan }).plan;
    expect(plan.version).toBe(1);
    const kinds = plan.actions.map((a) =>
      a.kind === 'translate' ? `translate:${a.reason}` : a.kind === 'reuse' ? `reuse:${a.donor}` : a.kind,
    );
    expect(new Set(kinds)).toEqual(
      new Set(['translate:changed', 'translate:new', 'reuse:planned', 'reuse:done', 'delete', 'forget']),
    );
    expect(plan.unchanged).toBe(2);

    const events = createSyncEvents();
    const executed: PlannedAction[] = [];
    events.on('action', (a) => executed.push(a));
    const mark = fx.mark();
    const s = await fx.sync({ events });
    expect(s.failed).toEqual([]);
    expect(executed.map(key).sort()).toEqual(plan.actions.map(key).sort());
    // ...and it did what they say: two new contents (edit, new, one twin) uploaded per target.
    expect(fx.uploads(mark)).toHaveLength(6);
    expect(s.reused).toBe(4);
    expect(fx.exists('out/de/gone.txt')).toBe(false);
  });
});
