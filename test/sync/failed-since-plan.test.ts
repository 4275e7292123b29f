import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { runSync } from '../../src/sync/engine.js';
import { createSyncEvents } from '../../src/sync/events.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { createFixture, FAST_POLL, onPostgres, type Fixture } from './fixture.js';

// Two runs on one state that planned the same outputs (on PostgreSQL two workers; a state.db
// allows one process, so there the two runs share this process): the first carries out its plan
// while the second's waits, and buys every output once, two of them answered untranslated by the
// service (billed, failing the output checks: quarantined). The second run then comes to each
// output with its older plan: right before its call would leave, the state says another run
// failed or delivered it since, and nothing is sent. Each failed output is bought once.

const FAILING = ['doc6.txt', 'doc7.txt'];
const FILES = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`doc${i}.txt`, `Document ${i}.\n`]));
const UNTRANSLATED = FAILING.map((name) => ({
  badOutput: 'untranslated' as const,
  badOutputFor: name,
  badOutputs: 100,
}));
const MAPPINGS = [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }];

let fx: Fixture;
afterEach(async () => fx?.close());

/**
 * The second run's plan is made; the first run is carried out from start to end before it goes
 * on. Answers both summaries and how often the service took each file's upload from `mark` on.
 */
async function firstWhileSecondWaits(
  mark = 0,
): Promise<{ first: SyncSummary; second: SyncSummary; perFile: Record<string, number> }> {
  const loaded = await fx.load();
  const a = await fx.open();
  const b = await fx.open();
  const run = (state: typeof a.state, check?: () => Promise<undefined>): Promise<SyncSummary> =>
    runSync({
      loaded,
      connection: { client: fx.client() },
      state,
      logger: silentLogger(),
      events: createSyncEvents(),
      options: { poll: FAST_POLL },
      ...(check ? { check } : {}),
    });
  try {
    let first: SyncSummary | undefined;
    const second = await run(b.state, async () => {
      first = await run(a.state);
      return undefined;
    });
    const perFile: Record<string, number> = {};
    for (const u of fx.uploads(mark)) perFile[u.filename] = (perFile[u.filename] ?? 0) + 1;
    return { first: first!, second, perFile };
  } finally {
    await a.close();
    await b.close();
  }
}

/**
 * Each file bought once, by the first run (which failed the two answered untranslated); the
 * second run bought nothing and says the failed outputs once, as not sent.
 */
function expectBoughtOnce({
  first,
  second,
  perFile,
}: Awaited<ReturnType<typeof firstWhileSecondWaits>>): void {
  expect(perFile).toEqual(Object.fromEntries(Object.keys(FILES).map((f) => [f, 1])));
  expect(first.failed.map((f) => [f.file, f.kind]).sort()).toEqual(FAILING.map((f) => [f, 'qa-failed']));
  expect(second.uploads).toBe(0);
  expect(second.billedCharacters).toBe(0);
  expect(second.failed).toEqual([]);
  expect((second.notSent ?? []).map((x) => x.file).sort()).toEqual(FAILING);
  expect(second.notSent?.[0]?.why).toMatch(
    /another worker's job \d+ failed it since this run planned it \(qa-failed\)/,
  );
  expect(second.unconfirmedUploads).toEqual([]);
}

describe(`outputs another run ended since this one planned them (${onPostgres ? 'postgres' : 'sqlite'})`, () => {
  it('are not bought again: the failed ones are said once as not sent, the delivered ones as done elsewhere', async () => {
    fx = await createFixture({
      files: FILES,
      service: { faults: UNTRANSLATED },
      manifest: { mappings: MAPPINGS },
    });
    const runs = await firstWhileSecondWaits();
    expectBoughtOnce(runs);
    expect(runs.second.elsewhere).toBe(6);
    // Nothing of the second run stays in the state: the failed outputs are the first run's.
    const st = await fx.open();
    try {
      const open = await st.state.jobs.open();
      expect(open.map((j) => [j.rel_path, j.error_kind]).sort()).toEqual(
        FAILING.map((f) => [f, 'qa-failed']),
      );
    } finally {
      await st.close();
    }
  }, 60_000);
});

// The same two runs, where each output already has a job an earlier run left open (its uploads
// refused): both plans continue those jobs rather than make new ones. The first run takes each up
// and fails two; the second, coming to a job another run has written since it planned it, must not
// send it again. The check right before a billed call leaves looks at the output's other jobs, not
// at the one this run took up, so this is seen when the job is taken up.
describe(`a recorded job another run failed since this one planned it (${onPostgres ? 'postgres' : 'sqlite'})`, () => {
  it('is not bought again: said once as not sent', async () => {
    fx = await createFixture({ files: FILES, manifest: { mappings: MAPPINGS } });
    fx.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, status: 503, count: 10_000 });
    const earlier = await fx.sync();
    expect(earlier.failed).toHaveLength(Object.keys(FILES).length);
    fx.service.clearFaults();
    fx.service.addFaults(...UNTRANSLATED);
    expectBoughtOnce(await firstWhileSecondWaits(fx.mark()));
  }, 60_000);
});
