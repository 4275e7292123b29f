import { setTimeout as sleep } from 'node:timers/promises';
import { Document, Packer, Paragraph } from 'docx';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { holdingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { API_KEY, createFixture, onPostgres, type Fixture } from '../sync/fixture.js';
import { charactersSent, editManifest, segmentsMapping, syncProcess, textRequests } from './helpers.js';

// What a segment job spent, as the summary, `status` and `report` tell it after a run was killed or
// stopped partway: only a text request recorded as sent with no recorded answer is possibly billed,
// only such a request's characters were possibly billed twice, and the answered requests of a job not
// done count as spent (report, status, budgets). The local service's request log is the oracle.

let fx: Fixture | undefined;
let proxy: HoldingProxy | undefined;
afterEach(async () => {
  await proxy?.release();
  await proxy?.close();
  proxy = undefined;
  await fx?.close();
  fx = undefined;
});

const TRANSLATE = { method: 'POST', path: '/v2/translate' };

function manifest(): Record<string, unknown> {
  return {
    // On PostgreSQL the killed worker's claim lasts its lease: kept short, so the next run takes over soon.
    ...(onPostgres ? { postgres: { lease_seconds: 5 } } : {}),
    mappings: [segmentsMapping()],
  };
}

/** A command's JSON (status exits 1 after a crashed or stopped run: it still prints it). */
async function cliJson<T>(f: Fixture, args: string[]): Promise<T> {
  const r = await runCli([...args, '-c', f.manifestPath]);
  expect([0, 1], r.stderr).toContain(r.code);
  return JSON.parse(r.stdout) as T;
}

interface StatusJson {
  inFlight: Array<{ file: string; unanswered_requests?: number; state: string }>;
  failures: Array<{ file: string; kind: string; attempts: number }>;
  spending: { billed_characters: number };
}

interface ReportJson {
  total: { billed_characters: number; unfinished_characters: number };
  possibly_billed_twice: Array<{ file: string; possibly_extra_characters: number | null }>;
}

async function waitFor(what: string, ok: () => boolean, stderr: () => string): Promise<void> {
  for (let i = 0; i < 600 && !ok(); i++) await sleep(50);
  expect(ok(), `${what}\n${stderr()}`).toBe(true);
}

describe('money of a segment job killed or stopped partway', () => {
  it('lists as possibly billed only the job with a request sent and unanswered, and only that request as billed twice', async () => {
    // Two documents of 50 lines each: a request of its own each (the run packs requests across
    // documents, 50 texts at most). The request of b.txt is held on its way to the service, then
    // the run is killed: one job has a request with no answer, the other every request answered.
    const lines = (name: string) =>
      Array.from({ length: 50 }, (_, i) => `${name} line ${i + 1} of its document.\n`).join('');
    fx = await createFixture({
      manifest: manifest(),
      files: { 'a.txt': lines('Alpha'), 'b.txt': lines('Beta') },
    });
    const f = fx;
    const held = await holdingProxy(f.service.url, (body) =>
      ((JSON.parse(body) as { text?: string[] }).text ?? []).some((t) => t.startsWith('Beta')),
    );
    proxy = held;
    editManifest(f, (m) => ((m.service as Record<string, unknown>).url = held.url));
    const killed = syncProcess(f);
    try {
      await waitFor(
        'one request held, the other answered',
        () => held.held().length === 1 && textRequests(f).length === 1,
        killed.stderr,
      );
      // The answer is recorded once the client has it.
      await sleep(1000);
    } finally {
      await killed.kill('SIGKILL');
    }
    const [lostFile, waitedFile] = ['b.txt', 'a.txt'];
    expect(held.held()[0]).not.toContain('Alpha');

    const status = await cliJson<StatusJson>(f, ['status', '--json', '--no-scan']);
    const inFlight = Object.fromEntries(status.inFlight.map((j) => [j.file, j]));
    expect.soft(inFlight[lostFile]?.unanswered_requests).toBe(1);
    // Its every request answered: delivered, or in flight with nothing possibly billed.
    expect.soft(inFlight[waitedFile]?.unanswered_requests ?? 0).toBe(0);
    if (inFlight[waitedFile]) expect.soft(inFlight[waitedFile].state).toContain('nothing possibly billed');

    // The held request reaches the service now: billed there, its answer never seen by locsync.
    await held.release();
    const lost = textRequests(f)[1]!;
    expect(textRequests(f)).toHaveLength(2);
    editManifest(f, (m) => ((m.service as Record<string, unknown>).url = f.service.url));
    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect.soft(run.unconfirmedUploads).toEqual([{ mapping: 'docs', file: lostFile, target: 'de' }]);
    expect(charactersSent(f, mark)).toBeGreaterThan(0);

    const report = await cliJson<ReportJson>(f, ['report', '--json']);
    expect(report.possibly_billed_twice.map((r) => [r.file, r.possibly_extra_characters])).toEqual([
      [lostFile, lost.characters],
    ]);
    // Every character the service billed is in the report (the lost request included).
    expect(report.total.billed_characters).toBe(charactersSent(f));
  }, 300_000);

  it('counts the answered requests of a job stopped partway as spent: status, report and the monthly budget', async () => {
    // 120 paragraphs: three requests of at most 50 texts, each answer taking a while; stopped (SIGTERM)
    // once the first is answered, the request in flight is answered and the third is not sent.
    const paragraphs = Array.from(
      { length: 120 },
      (_, i) => new Paragraph(`Step ${i + 1}: turn the valve and wait for the light number ${i + 1}.`),
    );
    fx = await createFixture({
      manifest: manifest(),
      files: {
        'manual.docx': await Packer.toBuffer(new Document({ sections: [{ children: paragraphs }] })),
      },
      service: { faults: [{ match: TRANSLATE, latencyMs: 800 }] },
    });
    const f = fx;
    const stopped = syncProcess(f);
    try {
      await waitFor('the first request answered', () => textRequests(f).length >= 1, stopped.stderr);
    } finally {
      await stopped.kill('SIGTERM');
    }
    const spent = charactersSent(f);
    expect(textRequests(f).length).toBeLessThan(3);
    expect(f.exists('out/de/manual.docx')).toBe(false);

    const status = await cliJson<StatusJson>(f, ['status', '--json', '--no-scan']);
    expect.soft(status.spending.billed_characters).toBe(spent);
    const report = await cliJson<ReportJson>(f, ['report', '--json']);
    expect.soft(report.total).toMatchObject({ billed_characters: spent, unfinished_characters: spent });

    // The month's cap counts what was spent: a cap of exactly that refuses the rest, which fits once
    // the cap leaves room for it (the refusal says what the rest would bill).
    f.service.clearFaults();
    editManifest(f, (m) => (m.budget = { per_month: spent }));
    const refused = await runCli(['sync', '-c', f.manifestPath], { env: { LOCSYNC_TEST_SYNC_KEY: API_KEY } });
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.stderr).toContain(`${spent.toLocaleString('en-US')} billed this month`);
    const rest = Number(
      /this run would bill ([\d,]+) characters/.exec(refused.stderr)?.[1]?.replace(/,/g, ''),
    );
    expect(rest).toBeGreaterThan(0);
    editManifest(f, (m) => (m.budget = { per_month: spent + rest }));
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect(charactersSent(f)).toBe(spent + rest);
    const after = await cliJson<ReportJson>(f, ['report', '--json']);
    expect(after.total).toMatchObject({ billed_characters: spent + rest, unfinished_characters: 0 });
  }, 300_000);

  it('stops a run at --max-billed once a job stopped partway has spent its share, and the next run sends only the rest', async () => {
    // 120 paragraphs: requests of 50, 50 and 20 texts. The second one's answer is lost (the service
    // took it, the connection broke): the job has spent two requests when its turn comes again, and
    // sending its last 70 paragraphs again would take the run over --max-billed (the plan's price).
    const paragraphs = Array.from(
      { length: 120 },
      (_, i) => `Step ${i + 1}: turn the valve and wait for the light number ${i + 1}.`,
    );
    fx = await createFixture({
      manifest: manifest(),
      files: {
        'manual.docx': await Packer.toBuffer(
          new Document({ sections: [{ children: paragraphs.map((t) => new Paragraph(t)) }] }),
        ),
      },
    });
    const f = fx;
    let lost = false;
    const breaking = await holdingProxy(f.service.url, (body) => {
      // The texts, not the context (the first request's context holds its next paragraphs).
      const texts = (JSON.parse(body) as { text?: string[] }).text ?? [];
      if (!lost && texts.some((t) => t.startsWith('Step 51:'))) {
        lost = true;
        f.service.addFaults({ match: TRANSLATE, drop: 1, dropAfterBody: true });
      }
      return false;
    });
    proxy = breaking;
    editManifest(f, (m) => ((m.service as Record<string, unknown>).url = breaking.url));
    const chars = (from: number, to: number) =>
      paragraphs.slice(from, to).reduce((n, t) => n + [...t].length, 0);
    const [first, second, third] = [chars(0, 50), chars(50, 100), chars(100, 120)];
    const cap = first + second + third;

    const stopped = await runCli(['sync', '-c', f.manifestPath, '--max-billed', String(cap)], {
      env: { LOCSYNC_TEST_SYNC_KEY: API_KEY },
    });
    expect(stopped.code, stopped.stderr).toBe(5);
    const n = (c: number) => c.toLocaleString('en-US');
    // What the job spent (the answered request and the lost one) counts against the cap.
    expect(stopped.stderr).toContain(
      `this run has ${n(first + second)} characters billed or in flight; the next document's text requests (about ${n(second + third)}) would go over --max-billed ${cap}`,
    );
    expect(stopped.stderr).toContain('Nothing more is sent this run.');
    expect(stopped.stderr).not.toContain('No more uploads');
    expect(textRequests(f).map((r) => r.texts)).toEqual([50]);
    expect(f.exists('out/de/manual.docx')).toBe(false);
    // Failed as the budget's, its attempt kept: its requests left (the repeat the cap refused did not).
    const status = await cliJson<StatusJson>(f, ['status', '--json', '--no-scan']);
    expect(status.failures.map((j) => [j.file, j.kind, j.attempts])).toEqual([['manual.docx', 'budget', 1]]);
    const report = await cliJson<ReportJson>(f, ['report', '--json']);
    expect(report.total).toMatchObject({
      billed_characters: first + second,
      unfinished_characters: first + second,
    });

    // The next run prices and sends only the 70 paragraphs still missing: a cap of exactly that lets it.
    const mark = f.mark();
    const rest = await runCli(['sync', '-c', f.manifestPath, '--max-billed', String(second + third)], {
      env: { LOCSYNC_TEST_SYNC_KEY: API_KEY },
    });
    expect(rest.code, rest.stderr).toBe(0);
    expect(textRequests(f, mark).reduce((k, r) => k + r.texts, 0)).toBe(70);
    expect(f.exists('out/de/manual.docx')).toBe(true);
    const after = await cliJson<ReportJson>(f, ['report', '--json']);
    expect(after.total).toMatchObject({
      billed_characters: first + 2 * second + third,
      unfinished_characters: 0,
    });
  }, 300_000);
});
