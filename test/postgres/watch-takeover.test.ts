import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgForTests } from '../helpers/postgres.js';
import {
  makeSources,
  outputsIn,
  startWatcher,
  stopWorkerProcess,
  TEST_WATCH,
  uploads,
  waitFor,
  watchBench,
  writePipeline,
} from '../helpers/workers.js';

// `locsync watch` on a PostgreSQL state: a watcher killed with SIGKILL while its documents wait on
// the service, and an idle watcher (poll mode, once an hour: it finds no file by itself) that takes
// the dead watcher's work over once its lease ran out — the documents it had uploaded collected, not
// uploaded again, and the ones it had not started translated. Once hung: the taken-over documents
// held every download slot while they waited for a worker place, and the new uploads held every
// place while they waited for a slot.
// Under load the kill can come late, and a document with an id may then be uploaded again as the
// rules allow (docs/operations.md, "Possibly billed twice"; counted on its job, `locsync report`
// lists it): the dead watcher had asked for its translation (a download is once only: the service
// answers the taker 404, a lost download), or it stalled past its lease before the kill and was
// taken over alive with its upload unanswered (an unconfirmed upload). Any other repeat is a bug.

const server = await pgForTests();

describe.skipIf(!server)('locsync watch on a PostgreSQL state: takeover', () => {
  const t = watchBench(server);

  it('kill -9 of a watcher: an idle watcher takes its documents over after the lease, none uploaded again but lost ones (counted)', async () => {
    const { src, out } = makeSources(t.dir, 0);
    const common = { dbUrl: t.db.url, serviceUrl: t.service.url, lease: 5, concurrency: 4 };
    // The survivor polls once an hour: it sees no new file by itself, so whatever it translates it
    // took over from the dead watcher.
    const survivor = await startWatcher(
      writePipeline(t.dir, {
        ...common,
        name: 'poll.yaml',
        watch: [...TEST_WATCH, 'poll: true', 'interval: 3600'],
      }),
      t.dir,
    );
    const victim = await startWatcher(writePipeline(t.dir, { ...common, watch: TEST_WATCH }), t.dir);
    const n = 8;
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `doc${i}.txt`), `Document ${i}.\n`);
    const check = new pg.Client({ connectionString: t.db.url });
    await check.connect();
    try {
      await waitFor('the victim to hold uploaded documents', async () => {
        const r = await check.query(`SELECT count(*)::int AS n FROM jobs WHERE status = 'uploaded'`);
        return r.rows[0].n >= 2;
      });
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      await victim.exited;
      const withId = (
        await check.query<{ rel_path: string; document_id: string }>(
          `SELECT rel_path, document_id FROM jobs WHERE document_id IS NOT NULL AND status <> 'done'`,
        )
      ).rows;
      expect(withId.length).toBeGreaterThan(0);

      await waitFor(
        'the survivor to deliver every output',
        () => outputsIn(out).length === n,
        90_000,
        () =>
          `outputs: ${outputsIn(out).join(', ')}\n--- survivor:\n${survivor.output()}\n--- victim (killed):\n${victim.output()}`,
      );
      const log = t.service.requests();
      const up = uploads(log);
      const takeovers = survivor
        .logLines()
        .filter((l) => l.msg === 'taking over the work of a worker that stopped beating');
      expect(takeovers.length).toBeGreaterThan(0);
      const takenOverAlive = (takeovers[0]!.time as number) < killedAt;
      for (const { rel_path: f, document_id: id } of withId) {
        const repeats = (
          await check.query<{ lost: number; unconfirmed: number }>(
            `SELECT sum(lost_downloads)::int AS lost, sum(unconfirmed_uploads)::int AS unconfirmed
             FROM jobs WHERE rel_path = $1`,
            [f],
          )
        ).rows[0]!;
        const handedOver = log.some((e) => e.path.startsWith(`/v2/document/${id}`) && e.status === 404);
        const allowed = (handedOver ? repeats.lost : 0) + (takenOverAlive ? repeats.unconfirmed : 0);
        expect(
          up.filter((e) => e.upload?.filename === f),
          `${f} (handed over before the kill: ${handedOver}, taken over alive: ${takenOverAlive}, ${JSON.stringify(repeats)})\n${survivor
            .logLines()
            .filter((l) => JSON.stringify(l).includes(f))
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        ).toHaveLength(1 + allowed);
      }
      const crashed = await check.query(`SELECT count(*)::int AS n FROM runs WHERE status = 'crashed'`);
      expect(crashed.rows[0].n).toBe(1);
      expect(await stopWorkerProcess(survivor)).toBe(0);
    } finally {
      await check.end();
    }
  }, 240_000);
});
