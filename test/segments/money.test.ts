import { setTimeout as sleep } from 'node:timers/promises';
import { Document, Packer, Paragraph } from 'docx';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunState } from '../../src/cli/open-state.js';
import { silentLogger } from '../../src/log/logger.js';
import { createFixture, onPostgres, runCliOn, type Fixture } from '../sync/fixture.js';
import { editManifest, segmentsMapping, syncProcess, textRequests } from './helpers.js';

// A text request is billed like an upload: recorded before it is sent, a lost answer is listed as
// possibly billed and its segments sent again, and a run killed mid-batch resumes without sending
// again what was answered.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const TRANSLATE = { method: 'POST', path: '/v2/translate' };

function manual(paragraphs: number): Promise<Buffer> {
  const children = Array.from(
    { length: paragraphs },
    (_, i) => new Paragraph(`Step ${i + 1}: turn the valve and wait for the light number ${i + 1}.`),
  );
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

function segmentsManifest(): Record<string, unknown> {
  return {
    // On PostgreSQL the killed worker's claim lasts its lease: kept short, so the next run takes over soon.
    ...(onPostgres ? { postgres: { lease_seconds: 5 } } : {}),
    mappings: [segmentsMapping()],
  };
}

/** `sync` in a process of its own, killed once the service answered its first text request and `settled`. */
async function killedAfterFirstAnswer(f: Fixture, settled: () => Promise<unknown>): Promise<void> {
  const killed = syncProcess(f);
  try {
    for (let i = 0; i < 600 && textRequests(f).length < 1; i++) await sleep(50);
    expect(textRequests(f), killed.stderr()).toHaveLength(1);
    await settled();
  } finally {
    await killed.kill('SIGKILL');
  }
}

/**
 * Wait until the state has the only job's requests all answered (and at least one recorded): its
 * first answer is recorded, and no other request has been recorded as sent.
 */
async function answersRecorded(f: Fixture): Promise<void> {
  const opened = await openRunState(await f.load(), {
    logger: silentLogger(),
    command: 'status',
    drives: false,
  });
  try {
    const memory = opened.state.segments!;
    let done = false;
    for (let i = 0; i < 600 && !done; i++) {
      const [job] = await opened.state.jobs.open();
      done =
        job !== undefined &&
        (await memory.billedOf(job.id)) > 0 &&
        (await memory.unansweredOf(job.id)).length === 0;
      if (!done) await sleep(50);
    }
    expect(done, 'the first answer recorded and no other request recorded as sent').toBe(true);
  } finally {
    await opened.close();
  }
}

interface ReportTotal {
  billed_characters: number;
  unfinished_characters: number;
}

/** `report --json`'s total. */
async function reportTotal(f: Fixture): Promise<ReportTotal> {
  const r = await runCliOn(f, 'report', '--json');
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { total: ReportTotal }).total;
}

describe('money rules of the segment path', () => {
  // Answers the service gives when it surely did not take the request: nothing of it was billed.
  it.each([
    { refusal: 'the quota used up (456)', status: 456, count: 1, kind: 'quota' },
    { refusal: 'a bad request (400)', status: 400, count: 1, kind: 'rejected' },
    { refusal: 'a refused key (403)', status: 403, count: 1, kind: 'auth' },
    { refusal: '503s past the retries', status: 503, count: 100, kind: 'transient' },
  ])('counts nothing as billed for a text request refused with $refusal', async ({ status, count, kind }) => {
    fx = await createFixture({
      manifest: segmentsManifest(),
      files: { 'a.txt': 'First line.\nSecond line.\n' },
      service: { faults: [{ match: TRANSLATE, status, count }] },
    });
    // A refused key ends the run (exit 2 in the CLI); the others fail the job.
    const refused = fx.sync();
    if (kind === 'auth') await expect(refused).rejects.toThrow('HTTP 403');
    else expect((await refused).failed.map((f) => [f.file, f.kind])).toEqual([['a.txt', kind]]);
    expect(textRequests(fx)).toEqual([]);
    expect(await reportTotal(fx)).toEqual(
      expect.objectContaining({ billed_characters: 0, unfinished_characters: 0 }),
    );

    fx.service.clearFaults();
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    expect(run.unconfirmedUploads).toEqual([]);
    const [answered] = textRequests(fx);
    expect(textRequests(fx)).toHaveLength(1);
    // The job's bill, the run's and the report's: the answered request alone.
    expect(run.billedCharacters).toBe(answered!.characters);
    const { state, close } = await fx.open();
    try {
      const job = (await state.jobs.latestDoneOf('out/de/a.txt'))!;
      expect((await state.jobs.get(job.id))?.billed_characters).toBe(answered!.characters);
    } finally {
      await close();
    }
    expect(await reportTotal(fx)).toEqual(
      expect.objectContaining({ billed_characters: answered!.characters, unfinished_characters: 0 }),
    );
  });

  // An answer dropped after the request was handled, or answered 200 unreadably (a proxy's page, JSON
  // without the translations): the service translated, and billed, the texts either way.
  it.each([
    { lost: 'dropped', fault: { drop: 1, dropAfterBody: true }, statuses: [0, 200] },
    { lost: 'answered 200 with a page, not JSON', fault: { garble: 1 }, statuses: [200, 200] },
    {
      lost: 'answered 200 without the translations',
      fault: { garble: 1, garbleAs: 'other-json' as const },
      statuses: [200, 200],
    },
  ])(
    'lists a text request whose answer was lost ($lost) as possibly billed, and sends its segments again',
    async ({ fault, statuses }) => {
      fx = await createFixture({
        manifest: segmentsManifest(),
        files: { 'a.txt': 'First line.\nSecond line.\n' },
        service: { faults: [{ match: TRANSLATE, ...fault }] },
      });
      const run = await fx.sync();
      expect(run.failed).toEqual([]);
      expect(run.unconfirmedUploads).toEqual([
        { mapping: 'docs', file: 'a.txt', target: 'de', cause: 'lost-answer' },
      ]);
      expect(fx.read('out/de/a.txt')).not.toContain('First line.');
      const log = fx.service.requests().filter((r) => r.path === '/v2/translate');
      expect(log.map((r) => r.status)).toEqual(statuses);
      // Billed for the lost request too: the job counts every request that may have been billed.
      const { state, close } = await fx.open();
      try {
        const job = (await state.jobs.latestDoneOf('out/de/a.txt'))!;
        const row = await state.jobs.get(job.id);
        expect(row?.unconfirmed_uploads).toBe(1);
        expect(row?.billed_characters).toBe(2 * textRequests(fx)[0]!.characters);
      } finally {
        await close();
      }
      expect(await reportTotal(fx)).toEqual(
        expect.objectContaining({ billed_characters: 2 * textRequests(fx)[0]!.characters }),
      );
    },
  );

  it('resumes a run killed mid-batch without sending again the batches already answered', async () => {
    // 120 paragraphs: three requests of at most 50 texts; each answer takes a while.
    fx = await createFixture({
      manifest: segmentsManifest(),
      files: { 'manual.docx': await manual(120) },
      service: { faults: [{ match: TRANSLATE, latencyMs: 800 }] },
    });
    // Killed once the first request is answered and the second is on its way.
    await killedAfterFirstAnswer(fx, () => sleep(250));
    const first = textRequests(fx);
    expect(first).toHaveLength(1);
    fx.service.clearFaults();
    const mark = fx.mark();
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    // The killed run's request in flight may have been billed: listed as a lost upload is.
    expect(run.unconfirmedUploads).toEqual([{ mapping: 'docs', file: 'manual.docx', target: 'de' }]);
    const resent = textRequests(fx, mark);
    const texts = resent.reduce((n, r) => n + r.texts, 0);
    expect(texts).toBe(120 - first[0]!.texts);
    expect(fx.exists('out/de/manual.docx')).toBe(true);
  });

  it('lists nothing as possibly billed for a request killed while it waited in the rate limiter', async () => {
    // One request every 1,000 seconds: the first of the three leaves at once, the second waits in
    // the rate limiter until the run is killed (it never reaches the service).
    fx = await createFixture({ manifest: segmentsManifest(), files: { 'manual.docx': await manual(120) } });
    const f = fx;
    const rate = (n: number) =>
      editManifest(f, (m) => ((m.service as Record<string, unknown>).requests_per_second = n));
    rate(0.001);
    // Killed once the client has recorded the first answer (the second request then waits).
    await killedAfterFirstAnswer(f, () => answersRecorded(f));
    expect(f.service.requests().filter((r) => r.path === '/v2/translate')).toHaveLength(1);
    const first = textRequests(f)[0]!;

    rate(1000);
    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    // Nothing the killed run recorded was left without its answer: nothing possibly billed.
    expect(run.unconfirmedUploads).toEqual([]);
    const texts = textRequests(f, mark).reduce((n, r) => n + r.texts, 0);
    expect(texts).toBe(120 - first.texts);
    expect(f.exists('out/de/manual.docx')).toBe(true);
  });

  it('does not send a request whose retry waits when the run is stopped, nor keeps it on record as sent', async () => {
    // The first attempt is refused for now (503, surely not taken), its retry due in 30 s.
    fx = await createFixture({
      manifest: segmentsManifest(),
      files: { 'a.txt': 'First line.\nSecond line.\n' },
      service: { faults: [{ match: TRANSLATE, status: 503, count: 1, retryAfter: 30 }] },
    });
    const f = fx;
    editManifest(
      f,
      (m) => (((m.service as Record<string, unknown>).retry as Record<string, unknown>).max_wait = 60),
    );
    const stopped = syncProcess(f);
    const sent = () => f.service.requests().filter((r) => r.path === TRANSLATE.path);
    for (let i = 0; i < 600 && sent().length === 0; i++) await sleep(50);
    expect(
      sent().map((r) => r.status),
      stopped.stderr(),
    ).toEqual([503]);
    await stopped.kill('SIGINT');
    expect(sent()).toHaveLength(1);
    // Nothing of it was billed: not recorded as a request sent, not counted in the job's bill.
    const opened = await openRunState(await f.load(), {
      logger: silentLogger(),
      command: 'status',
      drives: false,
    });
    try {
      const jobs = await opened.state.jobs.open();
      expect(jobs).toHaveLength(1);
      for (const job of jobs) expect(await opened.state.segments!.billedOf(job.id)).toBe(0);
    } finally {
      await opened.close();
    }

    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect(run.unconfirmedUploads).toEqual([]);
    expect(textRequests(f).reduce((n, r) => n + r.texts, 0)).toBe(2);
    expect(f.exists('out/de/a.txt')).toBe(true);
  });
});
