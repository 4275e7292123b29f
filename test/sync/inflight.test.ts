import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { createSyncEvents, type SyncEvents } from '../../src/sync/events.js';
import { createSyncSession, type SyncSession } from '../../src/sync/session.js';
import { FAST_POLL, createFixture, type Fixture } from './fixture.js';

// The engine, not its callers, guarantees that a (content, settings) unit in flight in a session is
// driven once (rescans while it is in flight upload nothing), and that an upload carries the content
// its job records (a file replaced after queueing is re-planned with its new content).

let fx: Fixture | undefined;
let state: StateStore | undefined;
afterEach(async () => {
  state?.close();
  state = undefined;
  await fx?.close();
  fx = undefined;
});

const ONE_TARGET = {
  mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
};

async function openSession(f: Fixture, events: SyncEvents): Promise<SyncSession> {
  const loaded = await f.load();
  state = openState(loaded.statePath);
  return createSyncSession({
    loaded,
    connection: { client: f.client() },
    state,
    logger: silentLogger(),
    events,
    options: { poll: FAST_POLL, command: 'watch' },
  });
}

const once = (events: SyncEvents, name: 'job:uploaded' | 'job:queued') =>
  new Promise<void>((resolve) => events.once(name, () => resolve()));

describe('sync session: work in flight', () => {
  it('a file rescanned while its job is in flight is uploaded once', async () => {
    // Translation takes a while: the job is uploaded and being polled when the rescans come.
    fx = await createFixture({
      manifest: ONE_TARGET,
      service: { translateSeconds: 0.6 },
      files: { 'a.txt': 'Alpha.\n' },
    });
    const events = createSyncEvents();
    const session = await openSession(fx, events);
    const uploaded = once(events, 'job:uploaded');
    await session.scanFile('docs', 'a.txt');
    await uploaded;
    // touched (mtime only), rescanned by path and by a full scan, while the job is polled
    const abs = path.join(fx.src, 'a.txt');
    fs.utimesSync(abs, new Date(), new Date(Date.now() + 5000));
    await session.scanFile('docs', 'a.txt');
    await session.scanAll();
    await session.scanFile('docs', 'a.txt');
    await session.drain();
    const s = session.finish();
    expect(fx.uploads().map((u) => u.filename)).toEqual(['a.txt']);
    expect(s.uploads).toBe(1);
    expect(s.failed).toEqual([]);
    expect(fx.exists('out/de/a.txt')).toBe(true);
  });
});
