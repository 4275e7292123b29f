import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.js';
import type { WatchConfig } from '../manifest/schema.js';
import { unwatched, type WatchedSource } from './sources.js';

// chokidar over the source folders of every mapping: native events, or polling for network shares
// (watch.poll). Write-finish detection (awaitWriteFinish) holds add/change events until a file's size
// has stopped changing for the stability window; the pending set then checks it once more.

export type FileEventKind = 'change' | 'unlink';

export interface SourceWatcher {
  /** Resolves once the initial walk is done and events flow. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function startSourceWatcher(
  sources: WatchedSource[],
  cfg: WatchConfig,
  onEvent: (absPath: string, kind: FileEventKind) => void,
  logger: Logger,
): SourceWatcher {
  const roots = [...new Set(sources.map((s) => s.root))];
  const stabilityMs = Math.max(50, cfg.stability * 1000);
  const intervalMs = Math.max(50, cfg.interval * 1000);
  const w: FSWatcher = watch(roots, {
    ignoreInitial: true,
    persistent: true,
    followSymlinks: true,
    usePolling: cfg.poll,
    interval: intervalMs,
    binaryInterval: intervalMs,
    awaitWriteFinish: {
      stabilityThreshold: stabilityMs,
      pollInterval: Math.max(25, Math.min(stabilityMs / 4, cfg.poll ? intervalMs : 250)),
    },
    ignored: (p: string) => unwatched(sources, p),
  });
  w.on('add', (p) => onEvent(p, 'change'));
  w.on('change', (p) => onEvent(p, 'change'));
  w.on('unlink', (p) => onEvent(p, 'unlink'));
  w.on('error', (err) => {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOSPC')
      logger.error(
        'the system limit of watched folders is reached (fs.inotify.max_user_watches): events are missed until the next rescan; raise the limit or set watch.poll: true',
      );
    else logger.warn({ err: e.message }, 'file watcher error');
  });
  const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return { ready, close: () => w.close() };
}
