import { watch, type FSWatcher } from 'chokidar';
import type { LoadedManifest } from '../manifest/types.js';
import type { WatchConfig } from '../manifest/sections/watch.js';

// Watches the manifest and the style list and glossary files it references; calls back (debounced) on any change.
// Editors often save by writing a new file and renaming it over the old one: chokidar's `atomic`
// handling and the debounce turn that into one call.

export function manifestFiles(loaded: LoadedManifest): string[] {
  const glossaryFiles = Object.values(loaded.glossaries ?? {}).flatMap((g) =>
    Object.values(g.dictionaries).map((d) => d.file),
  );
  return [
    ...new Set([loaded.path, ...Object.values(loaded.styleLists).map((l) => l.file), ...glossaryFiles]),
  ].sort();
}

export interface ManifestWatcher {
  /** Watch this set of files from now on (after a reload changed the style list files). */
  setFiles(files: string[]): void;
  close(): Promise<void>;
  /** Settles once the files are watched: an edit made before then could go unseen. */
  readonly ready: Promise<void>;
}

export function watchManifestFiles(
  files: string[],
  cfg: Pick<WatchConfig, 'poll' | 'interval'>,
  onChange: () => void,
  debounceMs = 300,
): ManifestWatcher {
  let timer: NodeJS.Timeout | undefined;
  let current = new Set(files);
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  const w: FSWatcher = watch([...current], {
    ignoreInitial: true,
    usePolling: cfg.poll,
    interval: Math.max(50, Math.min(cfg.interval * 1000, 2000)),
    atomic: true,
  });
  w.on('all', fire);
  w.on('error', () => undefined);
  const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
  return {
    ready,
    setFiles(next) {
      const nextSet = new Set(next);
      const gone = [...current].filter((f) => !nextSet.has(f));
      const added = next.filter((f) => !current.has(f));
      if (gone.length) w.unwatch(gone);
      if (added.length) w.add(added);
      current = nextSet;
    },
    async close() {
      clearTimeout(timer);
      await w.close();
    },
  };
}
