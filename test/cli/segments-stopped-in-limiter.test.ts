import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import { segmentsMapping } from '../segments/helpers.js';
import {
  GUARD_MS,
  interrupted,
  nextSyncEndsWell,
  refusedForNow,
  setRate,
  syncChild,
  type SyncChild,
} from './limiter-fixture.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// The segment path (method: segments) sends the run's segments as text requests, each billed like
// an upload and packed across documents by the service's limits (50 texts a request). One still
// waiting in the client's rate limiter (or for its retry) when uploads stop (Ctrl-C, the quota used
// up) has sent nothing and must not leave after it, billed: its texts stay unsent, their jobs left or
// failed for the next run, which sends each segment once. Over real HTTP (the local service on
// port 0), a real state file and the CLI as a child process.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** Three documents of a full request each (50 lines, none shared): the run sends three requests. */
const FILES = ['a.txt', 'b.txt', 'c.txt'];

/** Texts in one text request at most (the service's limit): the lines of each of FILES. */
const PER_REQUEST = 50;

/** `lines` lines of their own for `file`. */
const linesOf = (file: string, lines = PER_REQUEST) =>
  Array.from({ length: lines }, (_, i) => `Line ${i + 1} of ${file}.\n`).join('');

/** Documents translated into German segment by segment. */
const SEGMENTS = { mappings: [segmentsMapping()] };

const isText = (r: { path: string }) => r.path === '/v2/translate';

/** Text requests the service answered (translated, billed), and the texts they held. */
function translated(project: OpsProject): { requests: number; texts: number } {
  const done = project.service.requests().filter((r) => isText(r) && r.status === 200 && r.text);
  return { requests: done.length, texts: done.reduce((n, r) => n + r.text!.texts, 0) };
}

/** Rows of the state's text_requests table by state (sent, answered, lost). */
function textRequestStates(project: OpsProject): Record<string, number> {
  const file = path.join(project.dir, '.locsync/state.db');
  if (!fs.existsSync(file)) return {};
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare<[], { state: string; n: number }>(
        'SELECT state, COUNT(*) AS n FROM text_requests GROUP BY state',
      )
      .all();
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  } catch {
    return {}; // not made yet
  } finally {
    db.close();
  }
}

/** Resolves once the state recorded the first text request's answer. */
async function firstAnswered(project: OpsProject, run: SyncChild): Promise<void> {
  for (let i = 0; i < 600 && !textRequestStates(project).answered; i++) await sleep(50);
  // One document's share of one request: the first request holds one document's lines alone.
  expect(textRequestStates(project).answered, run.stderr()).toBe(1);
}

/**
 * The next `sync` ends well (nextSyncEndsWell), nothing is listed as possibly billed twice by the
 * report either, no text request is left recorded as sent without its answer, and over both runs the
 * service translated each segment once.
 */
async function nextSyncSendsEachSegmentOnce(
  project: OpsProject,
  files: readonly string[],
  lines = PER_REQUEST,
): Promise<void> {
  await nextSyncEndsWell(project, files);
  // Each document a full request (or its one line): as many requests as documents, packed full.
  expect(translated(project)).toEqual({ requests: files.length, texts: files.length * lines });
  const states = textRequestStates(project);
  expect(states.answered).toBe(files.length);
  expect(states.sent).toBeUndefined();
  const report = await project.cli(['report']);
  expect(report.code, report.stderr).toBe(0);
  expect(report.stdout).not.toContain('Possibly billed twice');
}

describe('Ctrl-C while a text request waits in the rate limiter (method: segments)', () => {
  // One request every 4 s: the request waiting when the signal comes would leave some seconds after it.
  // One every 1,000 s: the run does not wait that out (its waits in the limiter are cut).
  it.each([0.25, 0.001])(
    'at %s requests per second: it is not sent, the run exits 130 at once; the next run sends each segment once',
    async (rps) => {
      p = await opsProject({ manifest: SEGMENTS });
      for (const f of FILES) p.write(f, linesOf(f));
      // The first request (one document's lines) leaves at once, the second waits in the limiter.
      setRate(p, rps);
      const run = syncChild(p, ['--json', '--no-progress'], GUARD_MS);
      await firstAnswered(p, run);
      expect(translated(p), run.stderr()).toEqual({ requests: 1, texts: PER_REQUEST });
      run.signal('SIGINT');
      await interrupted(run);
      // The service saw the one request that had left before the signal, nothing more; the state
      // recorded nothing else as sent.
      expect(p.service.requests().filter(isText)).toHaveLength(1);
      expect(textRequestStates(p)).toEqual({ answered: 1 });

      await nextSyncSendsEachSegmentOnce(p, FILES);
    },
    120_000,
  );
});

describe('the quota used up (456) while a text request waits in the rate limiter (method: segments)', () => {
  it("the waiting request is not sent: failed as the quota's; the next run sends each segment once", async () => {
    p = await opsProject({ manifest: SEGMENTS });
    for (const f of FILES) p.write(f, linesOf(f));
    // The first request leaves at once and is refused (456); the second waits 4 s in the limiter.
    p.service.addFaults({ match: { method: 'POST', path: '/v2/translate' }, status: 456, count: 1 });
    setRate(p, 0.25);
    const run = await p.cli(['sync', '--json']);
    expect(run.code, run.stderr).toBe(EXIT.failed);
    // Only the refused request reached the service.
    expect(p.service.requests().filter(isText)).toHaveLength(1);
    const stopped = JSON.parse(run.stdout) as SyncSummary;
    expect(stopped.failed.map((f) => [f.file, f.kind]).sort()).toEqual(FILES.map((f) => [f, 'quota']));
    expect(stopped.unconfirmedUploads).toEqual([]);

    p.service.clearFaults();
    await nextSyncSendsEachSegmentOnce(p, FILES);
  }, 120_000);
});

describe('Ctrl-C while a text request waits to be retried (method: segments)', () => {
  it('the retry is not sent: the run exits 130 at once, nothing is listed as possibly billed; the next run sends it once', async () => {
    p = await opsProject({ manifest: SEGMENTS });
    p.write('a.txt', 'The text of a.txt.\n');
    // The request is refused for now (503, surely not taken) and retried after 30 s.
    const run = await refusedForNow(p, '/v2/translate');
    // Recorded as it left; the record stays while its retry waits.
    expect(textRequestStates(p)).toEqual({ sent: 1 });
    run.signal('SIGINT');
    await interrupted(run);
    // The first attempt, nothing more; the request it was is not on record as possibly billed.
    expect(p.service.requests().filter(isText)).toHaveLength(1);
    expect(textRequestStates(p)).toEqual({});

    await nextSyncSendsEachSegmentOnce(p, ['a.txt'], 1);
  }, 120_000);
});

describe('Ctrl-C while a resend after a lost answer waits in the rate limiter (method: segments)', () => {
  it('the run does not list it as possibly billed twice: nothing was sent again; the next run sends it once', async () => {
    p = await opsProject({ manifest: SEGMENTS });
    p.write('a.txt', 'The text of a.txt.\n');
    // The service takes the request and its answer is lost (possibly billed); the resend of its
    // segments, at once (nothing else to do), waits 1,000 s in the limiter.
    p.service.addFaults({ match: { method: 'POST', path: '/v2/translate' }, drop: 1, dropAfterBody: true });
    setRate(p, 0.001);
    const run = syncChild(p, ['--json', '--no-progress'], GUARD_MS);
    for (let i = 0; i < 600 && !textRequestStates(p).lost; i++) await sleep(50);
    expect(textRequestStates(p), run.stderr()).toEqual({ lost: 1 });
    await sleep(1000);
    run.signal('SIGINT');
    // Nothing listed as possibly billed twice, nothing failed: the resend was left for the next run.
    await interrupted(run);
    expect((JSON.parse(run.stdout()) as SyncSummary).left).toBe(1);
    expect(p.service.requests().filter(isText)).toHaveLength(1);
    expect(textRequestStates(p)).toEqual({ lost: 1 });

    // The next run sends the segment again; the lost request stays possibly billed (once).
    setRate(p, 1000);
    const next = await p.cli(['sync', '--json']);
    expect(next.code, next.stderr).toBe(EXIT.ok);
    expect(fs.existsSync(path.join(p.dir, 'out/de/a.txt'))).toBe(true);
    expect(translated(p)).toEqual({ requests: 1, texts: 1 });
    expect(textRequestStates(p)).toEqual({ lost: 1, answered: 1 });
    const report = await p.cli(['report', '--json']);
    expect(report.code, report.stderr).toBe(0);
    const repeated = (JSON.parse(report.stdout) as { possibly_billed_twice: Array<{ file: string }> })
      .possibly_billed_twice;
    expect(repeated.map((r) => r.file)).toEqual(['a.txt']);
  }, 120_000);
});

describe('a sync killed while the first text request of a job waits in the rate limiter (method: segments)', () => {
  it('shows no job in flight (nothing was sent for it); the next run sends each segment once', async () => {
    p = await opsProject({ manifest: SEGMENTS });
    for (const f of FILES) p.write(f, linesOf(f));
    // The first request (one document's lines) leaves at once and its job is done; the second waits
    // in the limiter.
    setRate(p, 0.001);
    const run = syncChild(p, ['--json', '--no-progress'], GUARD_MS);
    const written = () => FILES.filter((f) => fs.existsSync(path.join(p!.dir, 'out/de', f)));
    try {
      await firstAnswered(p, run);
      for (let i = 0; i < 600 && written().length === 0; i++) await sleep(50);
      expect(written(), run.stderr()).toHaveLength(1);
      await sleep(1000);
    } finally {
      run.signal('SIGKILL');
      await run.exited;
    }
    expect(p.service.requests().filter(isText)).toHaveLength(1);
    const status = await p.cli(['status', '--json', '--no-scan']);
    expect([0, 1], status.stderr).toContain(status.code);
    expect((JSON.parse(status.stdout) as { inFlight: unknown[] }).inFlight).toEqual([]);

    await nextSyncSendsEachSegmentOnce(p, FILES);
  }, 120_000);
});
