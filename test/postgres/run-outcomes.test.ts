import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresState } from '../../src/state/postgres/store.js';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from '../cli/ops-fixture.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// Every run says why it ended on a PostgreSQL state too: a sync refused before it began is recorded
// in the pipeline's database, and status reports the last run that ran, whatever came after it.

const server = await pgForTests();

describe.skipIf(!server)('run outcomes on a PostgreSQL state', () => {
  let db: TestDatabase;
  let p: OpsProject | undefined;
  beforeEach(async () => {
    db = await createTestDatabase(server!);
    p = await opsProject({ manifest: { state: db.url } });
  });
  afterEach(async () => {
    await p?.close();
    p = undefined;
    await db.drop();
  });

  async function status(args: string[] = []) {
    const r = await p!.cli(['status', '--json', '--no-scan', ...args]);
    const data = JSON.parse(r.stdout) as {
      last_outcome: Record<string, unknown> | null;
      last_run: Record<string, unknown> | null;
      runs: Array<{ status: string }>;
    };
    return { code: r.code, ...data };
  }

  it('a sync whose saved plan is out of date is recorded failed (config); status says what to do', async () => {
    p!.write('a.txt', 'The first document.\n');
    expect((await p!.cli(['plan', '-out', 'plan.json'])).code).toBe(EXIT.ok);
    p!.write('a.txt', 'The first document, edited after the review.\n');
    const refused = await p!.cli(['sync', '--plan', 'plan.json']);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toMatch(/--plan plan\.json: .* out of date/);
    const seen = await status();
    expect(seen.code).toBe(EXIT.failed);
    expect(seen.last_outcome).toMatchObject({ command: 'sync', status: 'failed', reason: 'config' });
    expect(seen.last_outcome?.advice).toMatch(/locsync validate/);
  }, 120_000);

  it('more skipped runs than status shows after a failed run: status still reports that run, and exits as right after it', async () => {
    p!.write('a.txt', 'A document with more than fifty characters in it, to go over.\n');
    expect((await p!.cli(['sync', '--max-billed', '10'])).code).toBe(EXIT.budget);
    const after = await status();
    expect(after).toMatchObject({
      code: EXIT.failed,
      last_outcome: { status: 'failed', reason: 'budget' },
    });

    // Runs skipped for the lock, as a state moved from SQLite holds them (a cron sync while watch ran).
    const state = await PostgresState.open({ url: db.url }, { migrate: false });
    try {
      for (let i = 0; i < 2; i++)
        await state.runs.finish(await state.runs.start('sync'), { status: 'skipped', reason: 'lock' }, {}, 0);
    } finally {
      await state.close();
    }
    const seen = await status(['--runs', '1']);
    expect(seen.code).toBe(after.code);
    expect(seen.last_outcome).toEqual(after.last_outcome);
    expect(seen.last_run).toMatchObject({ status: 'failed', reason: 'budget' });
    expect(seen.runs.map((r) => r.status)).toEqual(['skipped']);
  }, 120_000);
});
