import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTEXT_BOUND } from '../../src/sync/segments/batches.js';
import { holdingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { createFixture, onPostgres, type Fixture } from '../sync/fixture.js';
import { editManifest, segmentsMapping, syncProcess, textRequests } from './helpers.js';

// Text requests packed by the service's limits across the run's documents (issue 51): a first sync
// of many small string files sends full requests, a text repeated across files is sent once, a run
// killed after some requests sends again only what was not answered, and `context` stays bounded.

let fx: Fixture | undefined;
let proxy: HoldingProxy | undefined;
afterEach(async () => {
  await proxy?.release();
  await proxy?.close();
  proxy = undefined;
  await fx?.close();
  fx = undefined;
});

/** `count` JSON string files of `keys` short strings each, unique unless `shared` adds one to all. */
function stringFiles(count: number, keys: number, shared?: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < count; f++) {
    const strings: Record<string, string> = {};
    for (let k = 0; k < keys; k++) strings[`key_${k}`] = `Label ${k} of screen ${f}`;
    if (shared) strings.save = shared;
    files[`screen-${String(f).padStart(2, '0')}.json`] = `${JSON.stringify(strings, null, 2)}\n`;
  }
  return files;
}

function manifest(): Record<string, unknown> {
  return {
    // On PostgreSQL the killed worker's claim lasts its lease: kept short, so the next run takes over soon.
    ...(onPostgres ? { postgres: { lease_seconds: 5 } } : {}),
    mappings: [segmentsMapping()],
  };
}

/** SQL on the fixture's state itself: its state.db, or its PostgreSQL schema. */
async function stateSql(f: Fixture): Promise<{
  exec(sql: string): Promise<void>;
  all<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}> {
  const loaded = await f.load();
  if (onPostgres) {
    const client = new pg.Client({ connectionString: loaded.manifest.state as string });
    await client.connect();
    return {
      exec: async (sql) => void (await client.query(sql)),
      all: async <T>(sql: string) => (await client.query(sql)).rows as T[],
      close: () => client.end(),
    };
  }
  const db = new Database(loaded.statePath);
  return {
    exec: async (sql) => void db.exec(sql),
    all: async <T>(sql: string) => db.prepare(sql).all() as T[],
    close: async () => void db.close(),
  };
}

/** A text request's body (its texts under `text`); other bodies may be empty or not JSON. */
function isTextRequest(body: string): boolean {
  try {
    return Array.isArray((JSON.parse(body) as { text?: unknown }).text);
  } catch {
    return false;
  }
}

/** The fixture's service.concurrency set to `n`. */
function concurrency(f: Fixture, n: number): void {
  editManifest(f, (m) => ((m.service as Record<string, unknown>).concurrency = n));
}

describe('text requests packed across documents', () => {
  it('sends a first sync of 1,000 short strings in 50 files in at most 25 requests', async () => {
    fx = await createFixture({ manifest: manifest(), files: stringFiles(50, 20) });
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    const requests = textRequests(fx);
    expect(requests.reduce((n, r) => n + r.texts, 0)).toBe(1_000);
    expect(requests.length, JSON.stringify(requests.map((r) => r.texts))).toBeLessThanOrEqual(25);
    for (const r of requests) expect(r.context_characters).toBeLessThanOrEqual(CONTEXT_BOUND);
    expect(fx.read('out/de/screen-07.json')).toContain('"key_3"');
    // The summary counts the requests the service answered, not each document's share of one.
    expect(run.textRequests).toBe(requests.length);
  });

  it('sends a text repeated in 30 files once', async () => {
    fx = await createFixture({ manifest: manifest(), files: stringFiles(30, 1, 'Save your changes') });
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    const requests = textRequests(fx);
    // 30 strings of their own and the shared one, once: in one request.
    expect(requests.reduce((n, r) => n + r.texts, 0)).toBe(31);
    expect(requests).toHaveLength(1);
    const outputs = Object.keys(stringFiles(30, 1)).map((f) => JSON.parse(fx!.read(`out/de/${f}`)));
    expect(new Set(outputs.map((o: Record<string, string>) => o.save)).size).toBe(1);
  });

  /**
   * A sync of ten files of three strings (one request of 30 texts, ten documents' shares of it) on
   * a state whose `table` refuses a row when `when` holds (a trigger, as a full disk would refuse):
   * the records of the request's shares after it, and the segment memory's rows.
   */
  async function refusedBy(
    table: string,
    when: string,
  ): Promise<{ shares: Array<{ request: string; state: string }>; memory: number }> {
    fx = await createFixture({ manifest: manifest(), files: stringFiles(10, 3) });
    const f = fx;
    await (await f.open()).close();
    const db = await stateSql(f);
    try {
      await db.exec(
        onPostgres
          ? `CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
               IF ${when} THEN RAISE EXCEPTION 'no room for this row'; END IF; RETURN NEW; END $$;
             CREATE TRIGGER refuse_one BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_one()`
          : `CREATE TRIGGER refuse_one BEFORE INSERT ON ${table} WHEN ${when}
               BEGIN SELECT RAISE(ABORT, 'no room for this row'); END`,
      );
      await f.sync().catch(() => undefined);
      const shares = await db.all<{ request: string; state: string }>(
        'SELECT request, state FROM text_requests',
      );
      const [count] = await db.all<{ n: number }>(
        'SELECT CAST(count(*) AS integer) AS n FROM segment_memory',
      );
      return { shares, memory: count?.n ?? -1 };
    } finally {
      await db.close();
    }
  }

  it('records a request as sent in one transaction: every share or none', async () => {
    // The state refuses the sixth share's record: no share is recorded, and the request does not leave.
    const { shares } = await refusedBy('text_requests', '(SELECT count(*) FROM text_requests) >= 5');
    expect(shares).toEqual([]);
    expect(textRequests(fx!)).toEqual([]);
  });

  it('records the answer of a request in one transaction: every share or none', async () => {
    // The state refuses one document's rows: no share of the request is answered, none half.
    const { shares, memory } = await refusedBy('segment_memory', "NEW.document LIKE '%screen-05.json'");
    expect(textRequests(fx!)).toHaveLength(1);
    expect(shares).toHaveLength(10);
    expect(new Set(shares.map((r) => r.request)).size).toBe(1);
    expect(shares.filter((r) => r.state === 'answered')).toEqual([]);
    expect(memory).toBe(0);
  });

  it('sends again only the requests a killed run had no answer for', async () => {
    // 300 strings: six requests, one at a time. The fourth is held on its way to the service, the
    // run killed once the third answer is recorded: three batches answered, one lost, two unsent.
    fx = await createFixture({ manifest: manifest(), files: stringFiles(10, 30) });
    const f = fx;
    let translateRequests = 0;
    const held = await holdingProxy(f.service.url, (body) => isTextRequest(body) && ++translateRequests > 3);
    proxy = held;
    editManifest(f, (m) => ((m.service as Record<string, unknown>).url = held.url));
    concurrency(f, 1);
    const killed = syncProcess(f);
    try {
      for (let i = 0; i < 600 && held.held().length === 0; i++) await sleep(50);
      expect(held.held(), killed.stderr()).toHaveLength(1);
      expect(textRequests(f)).toHaveLength(3);
      // The third answer is recorded once the client has it (before the fourth request left, or
      // right after it).
      await sleep(1500);
    } finally {
      await killed.kill('SIGKILL');
    }
    // The held request reaches the service now: billed there, its answer never seen by locsync.
    await held.release();
    const first = textRequests(f);
    expect(first.map((r) => r.texts)).toEqual([50, 50, 50, 50]);
    editManifest(f, (m) => ((m.service as Record<string, unknown>).url = f.service.url));
    concurrency(f, 4);
    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    // The three answered batches are not sent again; the lost one and the two never sent are.
    expect(textRequests(f, mark).reduce((n, r) => n + r.texts, 0)).toBe(150);
    expect(run.unconfirmedUploads.length).toBeGreaterThan(0);
    expect(f.exists('out/de/screen-09.json')).toBe(true);
  });
});
