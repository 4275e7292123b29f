import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTEXT_BOUND } from '../../src/sync/segments/batch-pool.js';
import { createFixture, onPostgres, type Fixture } from '../sync/fixture.js';
import { editManifest, segmentsMapping, syncProcess, textRequests } from './helpers.js';

// Text requests packed by the service's limits across the run's documents (issue 51): a first sync
// of many small string files sends full requests, a text repeated across files is sent once, a run
// killed after some requests sends again only what was not answered, and `context` stays bounded.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const TRANSLATE = { method: 'POST', path: '/v2/translate' };

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
    expect(requests.length).toBeLessThanOrEqual(25);
    for (const r of requests) expect(r.context_characters).toBeLessThanOrEqual(CONTEXT_BOUND);
    expect(fx.read('out/de/screen-07.json')).toContain('"key_3"');
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

  it('sends again only the requests a killed run had no answer for', async () => {
    // 300 strings: six requests, one at a time, each answer taking a while.
    fx = await createFixture({
      manifest: manifest(),
      files: stringFiles(10, 30),
      service: { faults: [{ match: TRANSLATE, latencyMs: 400 }] },
    });
    const f = fx;
    concurrency(f, 1);
    const killed = syncProcess(f);
    try {
      for (let i = 0; i < 600 && textRequests(f).length < 3; i++) await sleep(25);
      expect(textRequests(f), killed.stderr()).toHaveLength(3);
      // The third answer recorded; the fourth request is on its way.
      await sleep(300);
    } finally {
      await killed.kill('SIGKILL');
    }
    const first = textRequests(f);
    expect(first).toHaveLength(3);
    f.service.clearFaults();
    concurrency(f, 4);
    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    const resent = textRequests(f, mark).reduce((n, r) => n + r.texts, 0);
    const answered = first.reduce((n, r) => n + r.texts, 0);
    // The three answered requests are not sent again (the third, answered as the run was killed,
    // at most: a loaded machine may kill it before its answer is recorded), the rest is.
    expect(resent).toBeGreaterThanOrEqual(300 - answered);
    expect(resent).toBeLessThanOrEqual(300 - answered + first[2]!.texts);
    expect(run.unconfirmedUploads.length).toBeGreaterThan(0);
    expect(f.exists('out/de/screen-09.json')).toBe(true);
  });
});
