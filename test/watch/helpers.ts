import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../../src/log/logger.js';
import { stringify } from 'yaml';
import { sqliteStatusSource } from '../../src/report/status-source.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { createWatchRunner, type WatchRunner } from '../../src/watch/runner.js';
import {
  createFixture,
  defaultManifest,
  FAST_POLL,
  type Fixture,
  type FixtureOptions,
} from '../sync/fixture.js';

// Watch playground: the sync fixture (temp folder, local service, state.db) with a manifest whose
// watch settings are short, and a WatchRunner started in-process.

export const FAST_WATCH = { stability: 0.4, interval: 0.1, shutdown: 3, rescan_minutes: 60 };

export function watchManifest(url: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const base = defaultManifest(url);
  const { watch, ...rest } = over;
  return { ...base, ...rest, watch: { ...FAST_WATCH, ...(watch as object | undefined) } };
}

export interface WatchFixture {
  fx: Fixture;
  runner: WatchRunner;
  state: StateStore;
  /** Stop the runner (if still running), close the state, the service and remove the folder. */
  close(): Promise<void>;
}

/**
 * A fixture whose manifest is `watchManifest(url, manifest(url))` and a runner started on it.
 */
export async function startWatchFixture(
  opts: Omit<FixtureOptions, 'manifest'> & {
    manifest?: (url: string) => Record<string, unknown>;
    /** Files relative to the project folder (style list files ...), written before the start. */
    project?: Record<string, string>;
    /** Called with the runner before it starts (listeners that must see the first scan). */
    beforeStart?: (runner: WatchRunner) => void;
  } = {},
): Promise<WatchFixture> {
  const { manifest, project, beforeStart, ...rest } = opts;
  // The fixture takes the manifest before it knows the url: write it once the service is up.
  const fx = await createFixture(rest);
  fs.writeFileSync(fx.manifestPath, stringify(watchManifest(fx.service.url, manifest?.(fx.service.url))));
  for (const [rel, text] of Object.entries(project ?? {})) fx.write(rel, text);
  const loaded = await fx.load();
  const state = openState(loaded.statePath);
  const runner = createWatchRunner({
    loaded,
    state,
    status: sqliteStatusSource(state),
    connection: { client: fx.client() },
    logger: silentLogger(),
    poll: FAST_POLL,
  });
  beforeStart?.(runner);
  await runner.start();
  return {
    fx,
    runner,
    state,
    async close() {
      await runner.stop();
      state.close();
      await fx.close();
    },
  };
}

/** Poll `cond` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(25);
  }
}

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** inotify watches held by this process (Linux; 0 elsewhere). */
export function inotifyWatches(): number {
  let n = 0;
  if (!fs.existsSync('/proc/self/fdinfo')) return 0;
  for (const fd of fs.readdirSync('/proc/self/fdinfo')) {
    try {
      n += fs
        .readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      /* closed meanwhile */
    }
  }
  return n;
}
