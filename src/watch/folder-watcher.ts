import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

// Native events with one watch per folder (Node's fs.watch on each folder: one inotify watch on
// Linux, whatever the number of files in it). The folder set follows the tree: a folder that
// appears (created, moved in, renamed) is watched before it is read, so nothing written into it is
// missed, even with `mkdir -p` or a folder of 5,000 files moved in at once; a folder that goes away
// is reported once with everything below it unwatched.
//
// Why not chokidar or @parcel/watcher: chokidar keeps one watch per file (100,000 files: 101,012
// inotify watches, 840 MB); @parcel/watcher on Linux does not watch the sub-folders of a folder that
// appears (measured; docs/watch.md).

export interface FolderEvents {
  /** Something happened to this path inside a watched folder (a file written, created or deleted). */
  path(abs: string): void;
  /** A folder appeared; `files` are the files found in it and below (each is new here). */
  folderAdded(abs: string, files: string[]): void;
  /** A watched folder is gone (deleted, moved away, renamed): every file below it is gone here. */
  folderRemoved(abs: string): void;
  /** Events may be missed from now on (watch limit reached, a folder that cannot be watched). */
  lost(reason: string): void;
}

export const WATCH_LIMIT_REACHED =
  'the system limit of watched folders is reached (fs.inotify.max_user_watches): events are missed until the next rescan; raise the limit or set watch.poll: true';

export class FolderWatcher {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private closed = false;

  constructor(
    /** Folders never watched (output folders, the state folder, hidden and ignored folders). */
    private readonly skip: (absDir: string) => boolean,
    private readonly on: FolderEvents,
  ) {}

  /** Folders watched (one native watch each). */
  get size(): number {
    return this.watchers.size;
  }

  isWatched(absDir: string): boolean {
    return this.watchers.has(absDir);
  }

  /**
   * Watch `dir` and every folder below it (each watched before it is read). Resolves with the files
   * found when `collect` is set (a folder that appeared: its files are new).
   */
  async addTree(dir: string, collect = false): Promise<string[]> {
    const files: string[] = [];
    const stack = [dir];
    while (stack.length && !this.closed) {
      const d = stack.pop()!;
      if (this.watchers.has(d) || this.skip(d)) continue;
      if (!this.watchOne(d)) continue;
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(d, { withFileTypes: true });
      } catch {
        continue; // gone meanwhile (its parent reports it) or unreadable (the scan reports it)
      }
      for (const e of entries) {
        const abs = path.join(d, e.name);
        if (e.isDirectory()) stack.push(abs);
        else if (collect && (e.isFile() || e.isSymbolicLink())) files.push(abs);
      }
    }
    return files;
  }

  /** Stop watching `dir` and every folder below it. */
  removeTree(dir: string): void {
    const prefix = dir + path.sep;
    for (const [d, w] of this.watchers)
      if (d === dir || d.startsWith(prefix)) {
        w.close();
        this.watchers.delete(d);
      }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private watchOne(dir: string): boolean {
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, { persistent: true }, (_type, name) => this.onEvent(dir, name));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC') this.on.lost(WATCH_LIMIT_REACHED);
      else if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.on.lost(`folder ${dir} cannot be watched (${code ?? (err as Error).message})`);
      return false;
    }
    w.on('error', () => {
      // The folder went away under its watch (some platforms report it so): same as a removal.
      if (this.watchers.get(dir) !== w) return;
      this.watchers.delete(dir);
      w.close();
      this.checkFolder(dir);
    });
    this.watchers.set(dir, w);
    return true;
  }

  private onEvent(dir: string, name: string | Buffer | null): void {
    if (this.closed || !this.watchers.has(dir)) return;
    // The watched folder itself moved or was deleted (its watch follows it: later names would be
    // reported under the old path).
    if (!isDir(dir)) {
      this.checkFolder(dir);
      return;
    }
    if (name === null) {
      // The platform could not say what changed: read the folder again.
      void this.addTree(dir, true).then((files) => this.on.folderAdded(dir, files));
      return;
    }
    const abs = path.join(dir, name.toString());
    this.checkFolder(abs);
  }

  /** Look at a path after an event: a new folder, a folder gone, or a file. */
  private checkFolder(abs: string): void {
    if (isDir(abs)) {
      if (this.watchers.has(abs) || this.skip(abs)) return;
      void this.addTree(abs, true).then((files) => {
        if (!this.closed) this.on.folderAdded(abs, files);
      });
      return;
    }
    if (this.watchers.has(abs)) {
      this.removeTree(abs);
      this.on.folderRemoved(abs);
      return;
    }
    this.on.path(abs);
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
