import { afterEach, describe, expect, it } from 'vitest';
import {
  CHAOS_FULL,
  chaosSeed,
  createChaosProject,
  expectCleanEnd,
  envNumber,
  seededRandom,
  type ChaosProject,
  type SyncRun,
  type WorkerKillPlan,
} from '../helpers/chaos.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// The crash test on a PostgreSQL state with several workers: rounds of WORKERS `locsync sync`
// processes on one pipeline, some of each round SIGKILLed at random moments while the others carry
// on (and take the dead workers' work over once their lease runs out), until KILLS kills landed on
// workers that had begun uploading; then one worker runs to the end. The same checks as the
// single-machine crash test: every output there with the right content, no partial file, no
// document uploaded twice unless the state reports why, nothing left for a later run.
// `npm run test:chaos` runs it larger. LOCSYNC_CHAOS_PG_KILLS, LOCSYNC_CHAOS_PG_DOCS override;
// LOCSYNC_CHAOS_SEED repeats a run's kill moments; LOCSYNC_CHAOS_VERBOSE=1 prints each round.

const server = await pgForTests();
const KILLS = envNumber('LOCSYNC_CHAOS_PG_KILLS', CHAOS_FULL ? 30 : 10);
const DOCS = envNumber('LOCSYNC_CHAOS_PG_DOCS', CHAOS_FULL ? 60 : 20);
const WORKERS = 3;
const LEASE_SECONDS = 5;
const SEED = chaosSeed();

let project: ChaosProject | undefined;
let db: TestDatabase | undefined;
afterEach(async () => {
  await project?.close();
  await db?.drop();
  project = db = undefined;
});

/**
 * Killed (6 in 10): a quarter of those at a moment after spawn (its start: planning, claiming), the
 * rest within 1 s of its first upload (its uploads, status checks and downloads).
 */
function pickKill(random: () => number): WorkerKillPlan | undefined {
  if (random() >= 0.6) return undefined;
  return random() < 1 / 4
    ? { kind: 'time', ms: 300 + Math.floor(random() * 2700), fromSpawn: true }
    : { kind: 'after-log', msg: 'uploading', ms: Math.floor(random() * 1000) };
}

/** A worker's errors and warnings (the first few), and the end of its log. */
function whyFailed(run: SyncRun): string {
  const lines = run.stderr.split('\n');
  const errors = lines.filter((l) => /"level":(40|50|60)/.test(l)).slice(0, 10);
  return [...errors, '…', run.stderr.slice(-1500)].join('\n');
}

/** The kill landed on a worker that had begun uploading (its log says so). */
const killedAtWork = (run: SyncRun) => run.killed && run.stderr.includes('"msg":"uploading"');

describe.skipIf(!server)(
  `crash test on PostgreSQL: ${WORKERS} workers a round, ${KILLS} kills over at least ${DOCS} documents (seed ${SEED})`,
  () => {
    it(
      'ends with every output translated once, no partial files, no unreported double upload',
      async () => {
        const random = seededRandom(SEED);
        db = await createTestDatabase(server!);
        project = await createChaosProject({ postgres: { url: db.url, leaseSeconds: LEASE_SECONDS } });
        project.addDocuments(DOCS);
        let kills = 0;
        let rounds = 0;
        while (kills < KILLS) {
          const plans = Array.from({ length: WORKERS }, () => pickKill(random));
          const t0 = Date.now();
          const round = await project.runWorkers(plans);
          rounds++;
          for (const run of round) {
            if (run.killed) kills += killedAtWork(run) ? 1 : 0;
            else expect(run.code, `a worker that was not killed failed:\n${whyFailed(run)}`).toBe(0);
          }
          if (process.env.LOCSYNC_CHAOS_VERBOSE)
            console.log(
              `round ${rounds} (${Date.now() - t0} ms): ${round.map((r) => (r.killed ? `killed${killedAtWork(r) ? ' at work' : ''}` : `exit ${r.code}`)).join(', ')}`,
            );
          // A round that some worker finished: more documents arrive (enough for every worker to upload).
          if (round.some((r) => !r.killed)) project.addDocuments(Math.ceil(DOCS / 2));
        }
        const final = await project.runSync();
        const context = `seed ${SEED}; ${kills} kills in ${rounds} rounds`;
        expect(final.code, `${context}\n${whyFailed(final)}`).toBe(0);
        expect(final.summary?.failed, context).toEqual([]);
        if (process.env.LOCSYNC_CHAOS_VERBOSE)
          console.log(
            `${context}; ${project.units().length} units; ${project.acceptedUploads().length} uploads accepted; re-uploads reported: ` +
              JSON.stringify(await project.reportedReuploads()),
          );

        await expectCleanEnd(project, context);
      },
      (KILLS + 10) * 30_000,
    );
  },
);
