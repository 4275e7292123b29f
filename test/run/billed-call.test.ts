import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PlanError,
  QuotaExceededError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnreadableAnswerError,
  UploadMaybeAcceptedError,
} from '../../src/api/errors.js';
import type { CallOptions } from '../../src/api/transport.js';
import type { BudgetCaps } from '../../src/billing/budget.js';
import { SpendGuard } from '../../src/billing/spend-guard.js';
import { createLogger } from '../../src/log/logger.js';
import { HeldByOtherWorkerError } from '../../src/state/held.js';
import { openState } from '../../src/state/store.js';
import type { JobRecord, SharedWork } from '../../src/state/types.js';
import { createSyncEvents } from '../../src/sync/events.js';
import {
  BilledAttempt,
  type BilledCallDeps,
  type CallRecord,
  type Reupload,
} from '../../src/sync/run/billed-call.js';
import { RunControl } from '../../src/sync/run/control.js';
import { LiveSummary } from '../../src/sync/run/live-summary.js';
import { RunLedger } from '../../src/sync/run/run-ledger.js';
import { requestRecord } from '../../src/sync/segments/text-request-record.js';
import { OutputIndex } from '../../src/sync/plan/output-index.js';

// The billed call (src/sync/run/billed-call.ts) on its own: a real state (SQLite), the run's real
// control, ledger, report and budget, and a scripted client in place of the service. Every outcome
// is checked for both methods: the document path's upload (the job row is its only record) and the
// segment path's text request (each also recorded in text_requests).

const dirs: string[] = [];
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const ANSWER = { ok: true };
const CHARS = 100;

/** One try of the scripted client: what happens after (or instead of) its bytes leaving. */
type Try =
  /** The bytes leave and the service answers. */
  | 'answer'
  /** The bytes leave; the service surely did not take them (a 503 before the body): tried again. */
  | 'retry'
  /** It waits to leave (the rate limiter, a retry's pause) until the send signal ends it. */
  | 'wait'
  /** The bytes leave and the call ends with this error. */
  | { fail: unknown }
  /** The call ends with this error before anything left (beforeSend never called). */
  | { failBefore: unknown }
  /** A client that never calls beforeSend answers. */
  | 'answer-unannounced';

/** A client following `tries`: how many times its bytes left. */
function scripted(tries: Try[]) {
  const calls = { left: 0, sends: 0 };
  const send = async (o: Required<CallOptions>): Promise<typeof ANSWER> => {
    calls.sends++;
    for (const t of tries) {
      if (t === 'wait') {
        await new Promise<void>((resolve) => o.signal.addEventListener('abort', () => resolve()));
        throw o.signal.reason;
      }
      if (t === 'answer-unannounced') return ANSWER;
      if (typeof t === 'object' && 'failBefore' in t) throw t.failBefore;
      await o.beforeSend();
      calls.left++;
      if (t === 'answer') return ANSWER;
      if (t === 'retry') continue;
      throw t.fail;
    }
    throw new Error('script ran out');
  };
  return { send, calls };
}

const init = (status?: number) => ({ method: 'POST', path: '/v2/x', ...(status ? { status } : {}) });

type Method = 'document' | 'segments';
const METHODS: Method[] = ['document', 'segments'];

interface Options {
  caps?: BudgetCaps;
  retryUnanswered?: boolean;
  maxAttempts?: number;
  reupload?: Reupload;
  shared?: Partial<SharedWork>;
  /** The run planned from a view of the ledger read now (what other runs write later, it did not see). */
  planned?: boolean;
}

async function setup(method: Method, o: Options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-billed-'));
  dirs.push(dir);
  const state = openState(path.join(dir, 'state.db'));
  closers.push(() => state.close());
  const runId = await state.runs.start('sync');
  const logger = createLogger({ level: 'silent' });
  const events = createSyncEvents();
  const uploading: unknown[] = [];
  events.on('job:uploading', (e) => uploading.push(e));
  const report = new LiveSummary(runId, events, logger);
  const control = new RunControl(report, 'LOCSYNC_KEY');
  const index = o.planned ? await OutputIndex.load(state.jobs) : undefined;
  const ledger = new RunLedger({ jobs: state.jobs, report, ...(index ? { index } : {}) });
  const guard = o.caps
    ? new SpendGuard({ caps: o.caps, billedThisMonth: 0, count: () => Promise.resolve(undefined) })
    : undefined;
  const unit = {
    mapping: 'docs',
    rel_path: 'a.txt',
    sha256: 'sha-a',
    target_lang: 'de',
    fingerprint: 'fp',
    base_fingerprint: 'base',
    output_path: 'out/de/a.txt',
    request: '{}',
  };
  const job = await ledger.created({ ...unit, run_id: runId });
  /** Another run (another worker's) takes the same output and unit, and fails or delivers it. */
  const otherRun = async (ends: 'failed' | 'done') => {
    const theirs = new RunLedger({ jobs: state.jobs });
    const other = await theirs.created({ ...unit, run_id: await state.runs.start('sync') });
    if (ends === 'done') await theirs.done(other, CHARS);
    else
      await theirs.failed(other, {
        kind: 'qa-failed',
        error: 'untranslated',
        keepDocument: false,
        countsAttempt: true,
      });
  };
  const deps: BilledCallDeps = {
    control,
    ledger,
    report,
    runId,
    maxAttempts: o.maxAttempts ?? 3,
    retryUnanswered: o.retryUnanswered ?? true,
    ...(guard ? { guard } : {}),
    ...(o.shared ? { shared: o.shared as SharedWork } : {}),
  };
  const dr = { job, reupload: o.reupload };
  const attempt = new BilledAttempt(
    deps,
    dr,
    { leaving: 'sending', afterStop: 'Nothing more.', call: 'request' },
    () => logger,
  );
  const memory = state.segments;
  if (!memory) throw new Error('this state keeps no segment memory');
  /** The method's own record of one call (the document path has none beside the job row). */
  const record = (): CallRecord | undefined =>
    method === 'segments'
      ? requestRecord(memory, [{ jobId: job.id, runId, texts: 1, characters: CHARS, request: randomUUID() }])
      : undefined;
  /** A call whose client is `send` (its bytes leave at beforeSend). */
  const callWith = (send: (o: Required<CallOptions>) => Promise<typeof ANSWER>, r = record()) =>
    attempt.call({ send, characters: CHARS, ...(r ? { record: r } : {}) });
  /** `sendable`: the caller's check as the bytes are about to leave (BilledCall.sendable). */
  const call = (tries: Try[], r = record(), sendable?: () => Promise<boolean>) => {
    const client = scripted(tries);
    return {
      client,
      outcome: attempt.call({
        send: client.send,
        characters: CHARS,
        ...(r ? { record: r } : {}),
        ...(sendable ? { sendable } : {}),
      }),
    };
  };
  /** The text requests recorded, by state (sent, answered, lost). */
  const requests = async () => {
    const rows = await memory.unansweredOf(job.id);
    return rows.length;
  };
  const row = async (): Promise<JobRecord> => (await state.jobs.get(job.id)) as JobRecord;
  return {
    state,
    control,
    report,
    guard,
    attempt,
    dr,
    call,
    callWith,
    otherRun,
    requests,
    row,
    uploading,
    memory,
    job,
    runId,
  };
}

/** The characters of text_requests the state holds for the job as possibly billed. */
async function billedRequests(s: Awaited<ReturnType<typeof setup>>): Promise<number> {
  return s.memory.billedOf(s.job.id);
}

describe.each(METHODS)('a billed call (method: %s)', (method) => {
  it('answered: recorded as sent once, as it left; the attempt counted once', async () => {
    const s = await setup(method);
    const { outcome, client } = s.call(['answer']);
    expect(await outcome).toEqual({ kind: 'answered', answer: ANSWER });
    expect(client.calls.left).toBe(1);
    expect((await s.row()).attempts).toBe(1);
    expect((await s.row()).upload_started_at).not.toBeNull();
    expect(s.uploading).toHaveLength(1);
    expect(s.attempt.spent).toBe(CHARS);
    if (method === 'segments') expect(await billedRequests(s)).toBe(CHARS);
  });

  it('a retry of a try surely not taken is the same call: one record, one attempt', async () => {
    const s = await setup(method);
    const { outcome, client } = s.call(['retry', 'retry', 'answer']);
    expect((await outcome).kind).toBe('answered');
    expect(client.calls.left).toBe(3);
    expect((await s.row()).attempts).toBe(1);
    expect(s.uploading).toHaveLength(1);
    if (method === 'segments') expect(await billedRequests(s)).toBe(CHARS);
  });

  it('the calls of one attempt count one attempt', async () => {
    const s = await setup(method);
    expect((await s.call(['answer']).outcome).kind).toBe('answered');
    expect((await s.call(['answer']).outcome).kind).toBe('answered');
    expect((await s.row()).attempts).toBe(1);
    expect(s.attempt.spent).toBe(2 * CHARS);
  });

  it('unsent: uploads stopped while it waited to leave: nothing recorded, no attempt', async () => {
    const s = await setup(method);
    const { outcome, client } = s.call(['wait']);
    s.control.stopUploads('stopped by the test', 'stopped');
    expect(await outcome).toEqual({ kind: 'unsent' });
    expect(client.calls.left).toBe(0);
    const row = await s.row();
    expect([row.attempts, row.upload_started_at]).toEqual([0, null]);
    expect(s.uploading).toHaveLength(0);
    expect(s.attempt.started).toBe(false);
    expect(await billedRequests(s)).toBe(0);
  });

  it('unsent: a call made after uploads stopped is never sent', async () => {
    const s = await setup(method);
    s.control.stopUploads('stopped by the test', 'stopped');
    const { outcome, client } = s.call(['answer']);
    expect(await outcome).toEqual({ kind: 'unsent' });
    expect(client.calls.sends).toBe(0);
  });

  it('unsent: cut while waiting for its retry, its earlier try (surely not taken) is not on record', async () => {
    const s = await setup(method);
    const { outcome, client } = s.call(['retry', 'wait']);
    await new Promise((r) => setTimeout(r, 20));
    s.control.stopUploads('stopped by the test', 'stopped');
    expect(await outcome).toEqual({ kind: 'unsent' });
    expect(client.calls.left).toBe(1);
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });

  it.each([
    ['the quota used up (456)', new QuotaExceededError(init(456)), 'quota'],
    ['a refused key (403)', new AuthError(init(403)), 'auth'],
  ])('failed: %s: surely not billed, the run stops uploading', async (_, err, kind) => {
    const s = await setup(method, { caps: { perRun: 1000 } });
    expect(await s.attempt.reserve(CHARS)).toBe(true);
    const out = await s.call([{ fail: err }]).outcome;
    expect(out.kind).toBe('failed');
    expect(out.kind === 'failed' && [out.failure.kind, out.failure.countsAttempt]).toEqual([kind, false]);
    expect(s.control.uploadsStopped?.kind).toBe(kind);
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });

  it('failed: a bad request (400) is surely not billed; it uses up an attempt; uploads go on', async () => {
    const s = await setup(method);
    const out = await s.call([{ fail: new InvalidRequestError(init(400)) }]).outcome;
    expect(out.kind === 'failed' && [out.failure.kind, out.failure.countsAttempt]).toEqual([
      'rejected',
      true,
    ]);
    expect(s.control.uploadsStopped).toBeUndefined();
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });

  it.each([
    ['503s past the retries', new UnavailableError(init(503))],
    ['429s past the retries', new RateLimitedError(init(429))],
    ['a 404 (the endpoint or the document is not there)', new NotFoundError(init(404))],
    ['a feature the plan lacks', new PlanError(init(403))],
    ['a connection never made', new NetworkError(init())],
  ])('not taken: %s: nothing billed, no attempt used up, tried again by the next run', async (_, err) => {
    const s = await setup(method);
    const out = await s.call([{ fail: err }]).outcome;
    expect(out.kind).toBe('not-taken');
    expect(out.kind === 'not-taken' && [out.failure.countsAttempt, out.failure.willRetry]).toEqual([
      false,
      true,
    ]);
    expect(s.control.uploadsStopped).toBeUndefined();
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });

  it.each([
    ['its answer lost after the body was sent', new UploadMaybeAcceptedError(init(502))],
    ['a 2xx answer that cannot be read', new UnreadableAnswerError(init(200))],
    ['an error nobody foresaw', new TypeError('socket hang up')],
    ['an HTTP status no rule knows', new ServiceError(init(302))],
  ])('maybe taken: %s: kept on record as possibly billed, sent again later in this run', async (_, err) => {
    const s = await setup(method);
    const out = await s.call([{ fail: err }]).outcome;
    expect(out.kind).toBe('maybe-taken');
    expect(out.kind === 'maybe-taken' && out.failure).toMatchObject({
      kind: 'maybe-accepted',
      countsAttempt: true,
      again: true,
    });
    expect(s.attempt.spent).toBe(CHARS);
    if (method === 'segments') expect(await billedRequests(s)).toBe(CHARS);
  });

  it('maybe taken, not sent again in this run: service.retry_unanswered_uploads is off', async () => {
    const s = await setup(method, { retryUnanswered: false });
    const out = await s.call([{ fail: new UploadMaybeAcceptedError(init(500)) }]).outcome;
    expect(out.kind === 'maybe-taken' && out.failure.again).toBeUndefined();
  });

  it('maybe taken, not sent again in this run: its attempts are used up', async () => {
    const s = await setup(method, { maxAttempts: 1 });
    const out = await s.call([{ fail: new UploadMaybeAcceptedError(init(500)) }]).outcome;
    expect(out.kind === 'maybe-taken' && [out.failure.again, out.failure.willRetry]).toEqual([
      undefined,
      false,
    ]);
  });

  it('a client that does not announce its bytes is recorded once the call ended', async () => {
    const s = await setup(method);
    const out = await s.call(['answer-unannounced']).outcome;
    expect(out.kind).toBe('answered');
    expect((await s.row()).attempts).toBe(1);
    if (method === 'segments') expect(await billedRequests(s)).toBe(CHARS);
  });

  it('an error before any byte left is still judged by the one rule (may have been billed)', async () => {
    const s = await setup(method);
    const out = await s.call([{ failBefore: new Error('ENOENT: the source went away') }]).outcome;
    expect(out.kind).toBe('maybe-taken');
  });

  it('a budget cap the call would exceed: not made, uploads stop for the budget', async () => {
    const s = await setup(method, { caps: { perRun: CHARS - 1 } });
    expect(await s.attempt.reserve(CHARS)).toBe(false);
    expect(s.control.uploadsStopped?.kind).toBe('budget');
    expect(s.guard?.committed()).toBe(0);
    const { outcome, client } = s.call(['answer']);
    expect((await outcome).kind).toBe('unsent');
    expect(client.calls.sends).toBe(0);
  });

  it('a budget reservation within the caps counts until settled', async () => {
    const s = await setup(method, { caps: { perRun: 2 * CHARS } });
    expect(await s.attempt.reserve(CHARS)).toBe(true);
    expect(s.guard?.committed()).toBe(CHARS);
    expect(await s.attempt.reserve(2 * CHARS + 1)).toBe(false);
  });

  it('nothing is sent while the state cannot record it (PostgreSQL away)', async () => {
    const shared = { paused: true };
    const s = await setup(method, { shared });
    const { outcome, client } = s.call(['answer']);
    await new Promise((r) => setTimeout(r, 400));
    expect(client.calls.sends).toBe(0);
    shared.paused = false;
    expect((await outcome).kind).toBe('answered');
    expect(client.calls.sends).toBe(1);
  });

  it('taken over: a record refused before the bytes left sends nothing', async () => {
    const s = await setup(method);
    const held = new HeldByOtherWorkerError('unit', 'worker-2');
    const refusing: CallRecord = {
      sent: () => Promise.reject(held),
      notTaken: () => Promise.resolve(),
      lost: () => Promise.resolve(),
    };
    const { outcome, client } = s.call(['answer'], refusing);
    expect(await outcome).toEqual({ kind: 'taken-over', err: held });
    expect(client.calls.left).toBe(0);
  });

  it('taken over after the service answered: the call counts as billed', async () => {
    const s = await setup(method, { caps: { perRun: 1000 } });
    expect(await s.attempt.reserve(CHARS)).toBe(true);
    const held = new HeldByOtherWorkerError('unit', 'worker-2');
    const refusing: CallRecord = {
      sent: () => Promise.reject(held),
      notTaken: () => Promise.resolve(),
      lost: () => Promise.resolve(),
    };
    const out = await s.call(['answer-unannounced'], refusing).outcome;
    expect(out).toEqual({ kind: 'taken-over', err: held, answer: ANSWER });
    // Billed for good: given back, the reservation still counts.
    s.guard?.release(s.job.id);
    expect(s.guard?.committed()).toBe(CHARS);
  });

  it('any other error of the state is the run’s: thrown', async () => {
    const s = await setup(method);
    const broken: CallRecord = {
      sent: () => Promise.reject(new Error('disk I/O error')),
      notTaken: () => Promise.resolve(),
      lost: () => Promise.resolve(),
    };
    await expect(s.call(['answer'], broken).outcome).rejects.toThrow('disk I/O error');
  });

  it.each([
    ['failed', 'failed'],
    ['delivered', 'done'],
  ] as const)(
    'ended elsewhere: another worker %s the output since this run planned it: nothing leaves, nothing billed',
    async (_, ends) => {
      const s = await setup(method, { planned: true });
      await s.otherRun(ends);
      const { outcome, client } = s.call(['answer']);
      expect(await outcome).toMatchObject({ kind: 'ended-elsewhere', found: { status: ends } });
      expect(client.calls.left).toBe(0);
      const row = await s.row();
      expect([row.attempts, row.upload_started_at]).toEqual([0, null]);
      expect(s.attempt.spent).toBe(0);
      expect(await billedRequests(s)).toBe(0);
      expect(s.report.summary().unconfirmedUploads).toEqual([]);
    },
  );

  it('raced: another worker ended the output after the check, while the call was out: listed as possibly billed twice', async () => {
    const s = await setup(method, { planned: true });
    const out = await s.callWith(async (o) => {
      await o.beforeSend();
      await s.otherRun('done');
      return ANSWER;
    });
    expect(out.kind).toBe('answered');
    expect(s.attempt.spent).toBe(CHARS);
    expect(s.report.summary().unconfirmedUploads).toEqual([
      expect.objectContaining({ file: 'a.txt', cause: 'raced' }),
    ]);
  });

  it('a call this run planned with nothing ended elsewhere since leaves and is listed as nothing more', async () => {
    const s = await setup(method, { planned: true });
    const { outcome, client } = s.call(['answer']);
    expect((await outcome).kind).toBe('answered');
    expect(client.calls.left).toBe(1);
    expect(s.report.summary().unconfirmedUploads).toEqual([]);
  });

  it('withdrawn: the caller’s check refuses it as its bytes are about to leave: nothing recorded, no attempt', async () => {
    const s = await setup(method, { caps: { perRun: 1000 } });
    expect(await s.attempt.reserve(CHARS)).toBe(true);
    const { outcome, client } = s.call(['answer'], undefined, () => Promise.resolve(false));
    expect(await outcome).toEqual({ kind: 'withdrawn' });
    expect(client.calls.left).toBe(0);
    const row = await s.row();
    expect([row.attempts, row.upload_started_at]).toEqual([0, null]);
    expect(s.uploading).toHaveLength(0);
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });

  it('the caller’s check is asked once: a retry of a call that left is not withdrawn', async () => {
    const s = await setup(method);
    let asked = 0;
    const sendable = () => Promise.resolve(++asked === 1);
    const { outcome, client } = s.call(['retry', 'answer'], undefined, sendable);
    expect((await outcome).kind).toBe('answered');
    expect([asked, client.calls.left]).toEqual([1, 2]);
    expect((await s.row()).attempts).toBe(1);
  });

  it('a lost answer’s resend is listed as possibly billed twice once it leaves, not before', async () => {
    const s = await setup(method, { reupload: 'lost-answer' });
    const waiting = s.call(['wait']);
    await new Promise((r) => setTimeout(r, 20));
    s.control.stopUploads('stopped by the test', 'stopped');
    expect((await waiting.outcome).kind).toBe('unsent');
    expect(s.report.summary().unconfirmedUploads).toEqual([]);

    const t = await setup(method, { reupload: 'lost-answer' });
    expect((await t.call(['answer']).outcome).kind).toBe('answered');
    expect(t.report.summary().unconfirmedUploads).toEqual([
      expect.objectContaining({ file: 'a.txt', cause: 'lost-answer' }),
    ]);
  });
});

describe('a lost download’s re-upload (method: document)', () => {
  it('counts no attempt as it leaves (the first upload’s stays counted)', async () => {
    const s = await setup('document', { reupload: 'lost-download' });
    expect((await s.call(['answer']).outcome).kind).toBe('answered');
    expect((await s.row()).attempts).toBe(0);
    expect((await s.row()).upload_started_at).not.toBeNull();
  });
});

describe('a share of a text request another job sends (method: segments)', () => {
  it('starts this job’s attempt and is recorded as it leaves; surely not taken, its record goes', async () => {
    const s = await setup('segments');
    const share = requestRecord(s.memory, [
      { jobId: s.job.id, runId: s.runId, texts: 1, characters: CHARS, request: randomUUID() },
    ]);
    await s.attempt.joins();
    expect((await s.row()).attempts).toBe(1);
    expect(s.uploading).toHaveLength(1);
    await share.sent();
    s.attempt.shared(CHARS);
    expect(s.attempt.spent).toBe(CHARS);
    expect(await billedRequests(s)).toBe(CHARS);
    await share.notTaken();
    s.attempt.shared(-CHARS);
    expect(s.attempt.spent).toBe(0);
    expect(await billedRequests(s)).toBe(0);
  });
});
