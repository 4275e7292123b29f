import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { WatchConfig } from '../manifest/sections/watch.js';
import { isDefaultIgnored } from '../sync/plan/list-sources.js';
import { FolderWatcher } from './folder-watcher.js';
import { FolderPoller, type PolledFile } from './poller.js';
import { SourceRoots } from './source-roots.js';
import { recordedUnder, unwatched, type WatchedSource } from './sources.js';

// The source folders of every mapping, watched: native events with one watch per folder, or a
// periodic listing for network shares (watch.poll). Either way events are paths for the pending set
// (which waits for the stability window); what may make events or deletions untrustworthy (watch
// limit reached, a source folder unmounted) is kept as a list of problems for /healthz.

export type FileEventKind = 'change' | 'unlink';

export interface SourceEvents {
  file(abs: string, kind: FileEventKind): void;
  /** The problems changed (empty: healthy again). */
  problems(list: string[]): void;
  /** A source folder that was missing is back: events were missed meanwhile, rescan. */
  rootBack(root: string): void;
}

export interface SourceState {
  /** The relative paths recorded in the state for a mapping's files, with size and mtime. */
  recorded(mapping: string): Promise<PolledFile[]>;
}

export interface SourceWatcher {
  /** Resolves once every folder is watched (native) or the poller is scheduled. */
  ready: Promise<void>;
  /** Native watches held (one per folder; 0 when polling). */
  watches(): number;
  /** Whether deletions under this source folder can be believed now (it is there). */
  trusts(root: string): boolean;
  close(): Promise<void>;
}

/** How often the source folders are looked at (native events do not say that a share is back). */
const ROOT_CHECK_MS = 2000;

class Problems {
  private readonly byKey = new Map<string, string>();
  constructor(
    private readonly logger: Logger,
    private readonly report: (list: string[]) => void,
  ) {}
  set(key: string, problem: string | undefined): void {
    if (this.byKey.get(key) === problem) return;
    if (problem) {
      this.byKey.set(key, problem);
      this.logger.error(problem);
    } else {
      if (!this.byKey.delete(key)) return;
      this.logger.info({ resolved: key }, 'watcher problem resolved');
    }
    this.report([...this.byKey.values()]);
  }
  has(key: string): boolean {
    return this.byKey.has(key);
  }
}

/** The recorded relative paths of each mapping. */
async function recordedIn(sources: WatchedSource[], state: SourceState): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const s of sources)
    if (!out.has(s.mapping))
      out.set(
        s.mapping,
        (await state.recorded(s.mapping)).map((f) => f.relPath),
      );
  return out;
}

export function startSourceWatcher(
  sources: WatchedSource[],
  cfg: WatchConfig,
  on: SourceEvents,
  state: SourceState,
  logger: Logger,
): SourceWatcher {
  const rootList = [...new Set(sources.map((s) => s.root))];
  const roots = new SourceRoots(rootList);
  const problems = new Problems(logger, on.problems);
  const rootKey = (r: string) => `root:${r}`;
  // A folder every mapping of which allows it to be away (allow_missing) makes watch no less healthy;
  // its deletions are still not believed while it is away.
  const mayBeAway = new Set(
    rootList.filter((r) => sources.filter((s) => s.root === r).every((s) => s.allowMissing)),
  );
  const rootState = (root: string, why: string | undefined) =>
    problems.set(rootKey(root), mayBeAway.has(root) ? undefined : why);
  const trusts = (root: string) => {
    const why = roots.missing(root);
    rootState(root, why);
    return why === undefined;
  };

  if (cfg.poll) {
    // The first listing is compared with what the state recorded, read before polling starts and
    // handed over once (the poller keeps its own packed listing from then on).
    let poller: FolderPoller | undefined;
    let closed = false;
    const ready = (async () => {
      const first = new Map<string, PolledFile[]>();
      for (const s of sources)
        if (!first.has(s.mapping)) first.set(s.mapping, await state.recorded(s.mapping));
      if (closed) return;
      const recorded = (mapping: string) => {
        const files = first.get(mapping) ?? [];
        first.delete(mapping);
        return files;
      };
      poller = new FolderPoller(sources, cfg.interval * 1000, roots, recorded, {
        file: on.file,
        rootState,
      });
      poller.start();
    })();
    return {
      ready,
      watches: () => 0,
      trusts,
      close: async () => {
        closed = true;
        await ready.catch(() => undefined);
        await poller?.close();
      },
    };
  }

  const skip = (dir: string) => unwatched(sources, dir) || isDefaultIgnored(path.basename(dir));
  const fw: FolderWatcher = new FolderWatcher(skip, {
    path: (abs) => on.file(abs, 'change'),
    folderAdded: (_dir, files) => {
      for (const f of files) on.file(f, 'change');
    },
    folderRemoved: (dir) => {
      if (rootList.includes(dir)) {
        checkRoots();
        return;
      }
      void recordedIn(sources, state)
        .then((known) => {
          for (const f of recordedUnder(sources, dir, (m) => known.get(m) ?? [])) on.file(f, 'unlink');
        })
        // The state did not answer: nothing is deleted now; the next rescan finds what is gone.
        .catch((err: Error) =>
          logger.error({ folder: dir, err: err.message }, 'deleted folder: not handled'),
        );
    },
    lost: (reason) => problems.set(`lost:${reason}`, reason),
  });
  // The source folders are looked at every few seconds (a stat each): one that went away (moved,
  // unmounted) holds deletions; one that is back, or mounted again (another device: the watches
  // of the old mount are dead), is watched afresh and rescanned.
  const watchedDevice = new Map<string, number | undefined>();
  const checkRoots = () => {
    for (const r of rootList) {
      const away = !trusts(r);
      const dev = away ? undefined : roots.deviceOf(r);
      const before = watchedDevice.get(r);
      if (dev === before) continue;
      watchedDevice.set(r, dev);
      fw.removeTree(r);
      if (dev !== undefined) void fw.addTree(r).then(() => on.rootBack(r));
    }
  };
  const rootTimer = setInterval(checkRoots, ROOT_CHECK_MS);
  rootTimer.unref();
  const ready = (async () => {
    for (const r of rootList) {
      const dev = trusts(r) ? roots.deviceOf(r) : undefined;
      watchedDevice.set(r, dev);
      if (dev !== undefined) await fw.addTree(r);
    }
  })();
  return {
    ready,
    watches: () => fw.size,
    trusts,
    close: async () => {
      clearInterval(rootTimer);
      fw.close();
    },
  };
}
