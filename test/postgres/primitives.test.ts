import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPool, resolvePassword } from '../../src/state/postgres/connect.js';
import { checkPostgresUrl } from '../../src/state/postgres/url.js';
import { migrate, schemaVersion } from '../../src/state/postgres/migrate.js';
import { PG_SCHEMA_VERSION } from '../../src/state/postgres/migrations.js';
import {
  attachJob,
  claimUnit,
  holdsUnit,
  releaseUnit,
  takeOverOrphans,
} from '../../src/state/postgres/claims.js';
import { beat, listWorkers, registerWorker, stopWorker } from '../../src/state/postgres/workers.js';
import { GlobalLimits, type GlobalLimitsOptions } from '../../src/state/postgres/limits.js';
import { withAdvisoryLock } from '../../src/state/postgres/advisory.js';
import { whileUnreachable } from '../../src/state/postgres/patient.js';
import { ConfigError } from '../../src/util/errors.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// The building blocks several workers share, against a real PostgreSQL server, each test in a
// database of its own. "Workers" are separate pools (separate connections), as separate processes
// would have; the process tests in multi-worker.test.ts run real processes.

const server = await pgForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the state URL and its password', () => {
  it('refuses a password written in the URL, and names a missing password variable', () => {
    expect(checkPostgresUrl('postgres://u:secret@db.example/x')).toMatch(/holds a password.*PGPASSWORD/);
    expect(checkPostgresUrl('postgres://u@db.example')).toMatch(/names no database/);
    expect(checkPostgresUrl('postgres://u@db.example:5432/locsync?sslmode=require')).toBeUndefined();
    expect(() => createPool({ url: 'postgres://u:secret@db.example/x' })).toThrow(ConfigError);
    expect(() => resolvePassword({ url: 'postgres://u@h/d', passwordEnv: 'LOCSYNC_PG_PW' }, {})).toThrow(
      /LOCSYNC_PG_PW, which is not set/,
    );
    expect(
      resolvePassword({ url: 'postgres://u@h/d', passwordEnv: 'X' }, { X: 'pw1', PGPASSWORD: 'pw2' }),
    ).toBe('pw1');
    expect(resolvePassword({ url: 'postgres://u@h/d' }, { PGPASSWORD: 'pw2' })).toBe('pw2');
  });
});

describe.skipIf(!server)('PostgreSQL primitives', () => {
  let db: TestDatabase;
  const pools: pg.Pool[] = [];
  const open = () => {
    const p = createPool({ url: db.url }, { max: 20 });
    pools.push(p);
    return p;
  };
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
    await db.drop();
  });
  afterAll(() => server?.stop());
  /** A worker (own pool, registered) and its view of the account's limits. */
  const limitsOf = async (o: Omit<GlobalLimitsOptions, 'workerId' | 'account'> & { account?: string }) => {
    const pool = open();
    const workerId = await registerWorker(pool, { command: 'sync', leaseSeconds: o.leaseSeconds });
    const limits = new GlobalLimits(pool, { workerId, account: 'key:test', ...o });
    await limits.prepare();
    return limits;
  };

  it('a worker waits while every connection slot is taken, and goes on when one is given back', async () => {
    // A role allowed one connection: the second is refused with 53300, as when max_connections is reached.
    const admin = open();
    const role = `locsync_one_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
    try {
      const url = new URL(db.url);
      url.username = role;
      const holder = createPool({ url: url.href }, { max: 1 });
      const waiter = createPool({ url: url.href }, { max: 1 });
      pools.push(holder, waiter);
      const held = await holder.connect();
      await expect(waiter.query('SELECT 1')).rejects.toMatchObject({ code: '53300' });
      setTimeout(() => held.release(true), 600);
      const r = await whileUnreachable(() => waiter.query<{ n: number }>('SELECT 1 AS n'), 30_000);
      expect(r.rows[0]?.n).toBe(1);
    } finally {
      await Promise.all(pools.splice(1).map((p) => p.end()));
      await admin.query(`DROP ROLE ${role}`);
    }
  });

  it('migrates once when four workers start together, and refuses a newer schema', async () => {
    const results = await Promise.all([open(), open(), open(), open()].map((p) => migrate(p, db.url)));
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    expect(results.every((r) => r.to === PG_SCHEMA_VERSION)).toBe(true);
    const p = open();
    expect(await schemaVersion(p)).toBe(PG_SCHEMA_VERSION);
    expect(await migrate(p, db.url)).toEqual({ from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION });
    await p.query('INSERT INTO locsync_schema (version) VALUES ($1)', [PG_SCHEMA_VERSION + 1]);
    await expect(migrate(p, db.url)).rejects.toThrow(/newer than this locsync understands/);
  });

  it('a unit is held by one worker; after its lease runs out another takes it over with its job', async () => {
    const p = open();
    await migrate(p, db.url);
    const a = await registerWorker(p, { command: 'sync', leaseSeconds: 0.5 });
    const b = await registerWorker(p, { command: 'sync', leaseSeconds: 0.5 });
    const unit = 'sha:de:fp';
    // Four attempts at once from two workers: exactly the first holder keeps it.
    const first = await claimUnit(p, a, unit, 0.5);
    expect(first).toEqual({ claimed: true, jobId: null, takenOverFrom: null });
    const rivals = await Promise.all([claimUnit(open(), b, unit, 0.5), claimUnit(open(), b, unit, 0.5)]);
    for (const r of rivals) expect(r).toMatchObject({ claimed: false, holder: a });
    expect(await attachJob(p, a, unit, 42)).toBe(true);
    expect(await attachJob(p, b, unit, 43)).toBe(false);

    // Renewed by a's heartbeat, the unit stays a's past the first lease.
    await sleep(300);
    await beat(p, a, 0.5);
    await sleep(300);
    expect(await claimUnit(p, b, unit, 0.5)).toMatchObject({ claimed: false });

    // a stops beating (killed): b takes the unit over and learns the job to resume.
    await sleep(600);
    expect(await claimUnit(p, b, unit, 5)).toEqual({ claimed: true, jobId: 42, takenOverFrom: a });
    expect(await holdsUnit(p, a, unit, 5)).toBe(false);
    expect(await holdsUnit(p, b, unit, 5)).toBe(true);
    const takeovers = await p.query('SELECT takeovers FROM work_claims WHERE unit = $1', [unit]);
    expect(takeovers.rows[0]).toEqual({ takeovers: 1 });
    await releaseUnit(p, b, unit);
    expect(await claimUnit(p, a, unit, 5)).toMatchObject({ claimed: true, jobId: null });
  });

  it("a dead worker's jobs are shared out among the living, each to one of them", async () => {
    const p = open();
    await migrate(p, db.url);
    const dead = await registerWorker(p, { command: 'watch', leaseSeconds: 0.2 });
    for (let i = 0; i < 40; i++) {
      await claimUnit(p, dead, `u${i}`, 0.2);
      await attachJob(p, dead, `u${i}`, i + 1);
    }
    await claimUnit(p, dead, 'no-job-yet', 0.2);
    await sleep(400);
    const living = await Promise.all(
      [1, 2, 3, 4].map(() => registerWorker(p, { command: 'watch', leaseSeconds: 30 })),
    );
    const taken = await Promise.all(
      living.map(async (w) => {
        const pool = open();
        const got = [];
        for (let round = 0; round < 5; round++) got.push(...(await takeOverOrphans(pool, w, 30, 4)));
        return got;
      }),
    );
    const all = taken.flat();
    expect(all.map((t) => t.jobId).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    expect(new Set(all.map((t) => t.unit)).size).toBe(40);
    expect(all.every((t) => t.previous === dead)).toBe(true);
    // A unit without a job is not "work in progress": it is claimed afresh by whoever plans it.
    expect(all.some((t) => t.unit === 'no-job-yet')).toBe(false);
  });

  it('status sees live, dead and stopped workers and the jobs each holds', async () => {
    const p = open();
    await migrate(p, db.url);
    const live = await registerWorker(p, { command: 'watch', leaseSeconds: 30 });
    const dead = await registerWorker(p, { command: 'sync', leaseSeconds: 0.2 });
    const gone = await registerWorker(p, { command: 'sync', leaseSeconds: 30 });
    await claimUnit(p, live, 'x', 30);
    await claimUnit(p, live, 'y', 30);
    await claimUnit(p, gone, 'z', 30);
    await stopWorker(p, gone);
    await sleep(300);
    expect(await beat(p, live, 30)).toBe(true);
    expect(await beat(p, gone, 30)).toBe(false);
    const byId = new Map((await listWorkers(p)).map((w) => [w.id, w]));
    expect(byId.get(live)).toMatchObject({ alive: true, jobs_held: 2, command: 'watch', pid: process.pid });
    expect(byId.get(dead)).toMatchObject({ alive: false, stopped_at: null });
    expect(byId.get(dead)!.heartbeat_age_s).toBeGreaterThan(0.2);
    expect(byId.get(gone)).toMatchObject({ alive: false, jobs_held: 0 });
    expect(byId.get(gone)!.stopped_at).not.toBeNull();
    expect(await claimUnit(p, live, 'z', 30)).toMatchObject({ claimed: true, takenOverFrom: null });
  });

  it('the places of the account are never over-taken by four workers, and a dead holder frees its place', async () => {
    const p = open();
    await migrate(p, db.url);
    const cap = 5;
    let holding = 0;
    let peak = 0;
    const places = { in_flight: cap, undownloaded: 2 };
    const workers = await Promise.all(
      [1, 2, 3, 4].map(() => limitsOf({ places, requestsPerSecond: 100, leaseSeconds: 30, pollMs: 20 })),
    );
    await Promise.all(
      workers.map(async (limits) => {
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            const place = await limits.acquire('in_flight');
            holding++;
            peak = Math.max(peak, holding);
            expect(await limits.inUse('in_flight')).toBeLessThanOrEqual(cap);
            await sleep(5 + Math.random() * 20);
            holding--;
            await limits.release(place);
          }),
        );
      }),
    );
    expect(peak).toBeLessThanOrEqual(cap);
    expect(peak).toBeGreaterThan(1);
    expect(await workers[0]!.inUse('in_flight')).toBe(0);

    // A worker that dies holding both undownloaded places: they come back when its lease ends.
    const dead = await limitsOf({ places, requestsPerSecond: 100, leaseSeconds: 0.3 });
    await dead.acquire('undownloaded');
    await dead.acquire('undownloaded');
    expect(await workers[1]!.tryAcquire('undownloaded')).toBeUndefined();
    const ctl = new AbortController();
    const waited = workers[1]!.acquire('undownloaded', ctl.signal);
    const timer = setTimeout(() => ctl.abort(new Error('never freed')), 10_000);
    expect(await waited).toMatchObject({ kind: 'undownloaded' });
    clearTimeout(timer);
  });

  it('requests per second hold for all workers together, and a pause asked by one holds for all', async () => {
    const p = open();
    await migrate(p, db.url);
    const rate = 20;
    const mk = () =>
      limitsOf({ places: { in_flight: 1, undownloaded: 1 }, requestsPerSecond: rate, leaseSeconds: 30 });
    const limiters = await Promise.all([mk(), mk(), mk(), mk()]);
    const times: number[] = [];
    await Promise.all(
      limiters.map(async (l) => {
        for (let i = 0; i < 12; i++) {
          await l.takeToken();
          times.push(performance.now());
        }
      }),
    );
    // Any window of one second holds at most rate + burst (= 2 x rate) tokens, across all four.
    times.sort((x, y) => x - y);
    for (let i = 0; i < times.length; i++) {
      const inWindow = times.filter((t) => t >= times[i]! && t < times[i]! + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(2 * rate);
    }
    // 48 tokens at 20/s with a burst of 20 cannot all be taken in the first second.
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(1000);

    await limiters[0]!.pause(400);
    const paused = await p.query<{ until: string }>(
      `SELECT paused_until AS until FROM locsync_account.rate_buckets`,
    );
    await limiters[3]!.takeToken();
    const after = await p.query<{ now: string }>('SELECT clock_timestamp() AS now');
    expect(Date.parse(after.rows[0]!.now)).toBeGreaterThanOrEqual(Date.parse(paused.rows[0]!.until));
  });

  it('an advisory lock lets one worker at a time through', async () => {
    const key = 123456789n;
    let inside = 0;
    let overlap = false;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        withAdvisoryLock(open(), key, async () => {
          inside++;
          if (inside > 1) overlap = true;
          await sleep(50);
          order.push(n);
          inside--;
        }),
      ),
    );
    expect(overlap).toBe(false);
    expect(order.sort()).toEqual([1, 2, 3]);
  });
});
