import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAOS_FULL,
  chaosSeed,
  createChaosProject,
  expectCleanEnd,
  envNumber,
  seededRandom,
  type ChaosProject,
  type KillPlan,
  type SyncRun,
} from '../helpers/chaos.js';

// The crash test: `locsync sync` against a separately running service, SIGKILLed at random moments
// and restarted, until it has been killed KILLS times; then one run to the end. Every output must be
// there with the right content, no partial file left, and no document uploaded twice unless the
// pipeline reported why. In `npm test` (and so in CI) at the scale the sync engine must survive: 20 kills
// over 30 documents; `npm run test:chaos` runs it larger (40 kills, 60 documents). Override: LOCSYNC_CHAOS_KILLS, LOCSYNC_CHAOS_DOCS;
// LOCSYNC_CHAOS_SEED repeats a run's kill moments; LOCSYNC_CHAOS_VERBOSE=1 prints each run.

const KILLS = envNumber('LOCSYNC_CHAOS_KILLS', CHAOS_FULL ? 40 : 20);
const DOCS = envNumber('LOCSYNC_CHAOS_DOCS', CHAOS_FULL ? 60 : 30);
const SEED = chaosSeed();

let project: ChaosProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/**
 * A random kill moment: most while documents move, some right after the service answered an upload or
 * a download (the client's windows between an answer and its record), a few while the CLI starts.
 */
function pickKill(random: () => number): KillPlan {
  const r = random();
  if (r < 0.1) return { kind: 'time', ms: Math.floor(random() * 2500), fromSpawn: true };
  if (r < 0.35) return { kind: 'after-upload', n: 1 + Math.floor(random() * 3) };
  if (r < 0.55) return { kind: 'after-download', n: 1 + Math.floor(random() * 3) };
  return { kind: 'time', ms: Math.floor(random() * 600) };
}

describe(`crash test: sync SIGKILLed ${KILLS} times over at least ${DOCS} documents (seed ${SEED})`, () => {
  it(
    'ends with every output translated once, no partial files, no unreported double upload',
    async () => {
      const random = seededRandom(SEED);
      project = await createChaosProject();
      project.addDocuments(DOCS);
      const runs: SyncRun[] = [];
      let kills = 0;
      // Kill until KILLS kills landed; when a run gets to the end first, more documents arrive.
      while (kills < KILLS) {
        const plan = pickKill(random);
        const t0 = Date.now();
        const run = await project.runSync(plan);
        runs.push(run);
        if (process.env.LOCSYNC_CHAOS_VERBOSE)
          console.log(
            `run ${runs.length}: ${JSON.stringify(plan)} -> ${run.killed ? `killed after ${run.lastRequest}` : `exit ${run.code}`} in ${Date.now() - t0} ms`,
          );
        if (run.killed) {
          // A kill before the run reached the service (still starting) is extra: it does not count.
          if (run.lastRequest !== 'none') kills++;
        } else {
          expect(run.code, `a run that was not killed failed:\n${run.stderr.slice(-2000)}`).toBe(0);
          project.addDocuments(Math.max(2, Math.ceil(DOCS / 4)));
        }
      }
      const final = await project.runSync();
      const context = `seed ${SEED}; kills landed after: ${runs
        .filter((r) => r.killed)
        .map((r) => r.lastRequest)
        .join(', ')}`;
      expect(final.code, `${context}\n${final.stderr.slice(-3000)}`).toBe(0);
      expect(final.summary?.failed, context).toEqual([]);

      if (process.env.LOCSYNC_CHAOS_VERBOSE)
        console.log(
          `${kills} kills in ${runs.length} runs; ${project.units().length} (document, target) units; ` +
            `${project.acceptedUploads().length} uploads accepted by the service; re-uploads reported: ` +
            JSON.stringify(await project.reportedReuploads()),
        );
      await expectCleanEnd(project, context);
    },
    (KILLS + 6) * 20_000,
  );
});
