import fs from 'node:fs';
import path from 'node:path';
import {
  isDefaultIgnored,
  isSupportedExtension,
  SourceRules,
  statSourceFile,
  unreadableFile,
  unreadableFolder,
  type ListOptions,
  type ScanProblem,
} from './source-rules.js';
import { extOf } from './fingerprint.js';
import { FAILED, GONE, StatHelper, type HandedFolder, type StattedFolder } from './stat-helper.js';
import { TimeSlices } from '../../util/time-slices.js';

// The walk of a source folder, one folder at a time: each folder is read (one readdir) and its files
// stat'ed, and handed over with their names, sizes, mtimes, inodes and ctimes before the next folder
// is read. Nothing is kept per file beyond the folder being read (watch's poll mode keeps no listing
// of the whole tree; the sync's listing, list-sources.ts, builds its own from the folders). Which
// entries are source files is decided by source-rules.ts. Synchronous reads a folder at a time: one
// readdir and a stat per file cost less than the callbacks of asynchronous ones, and the event loop
// gets a turn between slices of work. A large walk may stat its plain files on a second thread
// (stat-helper.ts); its folders are then handed over in no set order.

/** A folder's files as listed: names, and size, mtime, inode, ctime of each in the same order. */
export interface FolderFiles {
  readonly names: readonly string[];
  readonly stats: ArrayLike<number>;
}

/** Numbers kept per file in FolderFiles.stats: size, mtime, inode, ctime (FileStamp). */
export const NUMBERS_PER_FILE = 4;

export interface WalkOptions extends ListOptions {
  /** Called for a file taken by the patterns whose extension the service does not translate. */
  unsupported?: (relPath: string) => void;
  /** Once the walk has found STAT_THREAD_AFTER files, stat the rest on a second thread. */
  statThread?: boolean;
}

/** Files found before a walk starts its stat thread: a small tree is done before it would start. */
export const STAT_THREAD_AFTER = 2000;

/** A file's path relative to the source folder, from its folder's and its own name. */
export const relPathIn = (rel: string, name: string): string => (rel === '' ? name : `${rel}/${name}`);

/** A file's folder: its path before the last '/' ('' at the top). */
export function folderOfPath(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash === -1 ? '' : relPath.slice(0, slash);
}

interface Pending {
  abs: string;
  rel: string;
  /** Reached through a symbolic link: exclude patterns are matched on files, no folder is skipped whole. */
  nested: boolean;
}

/**
 * Walk the source folder `root`, calling `folder` for each folder read (with its source files, maybe
 * none, and its path with a trailing separator). Returns the problems met (unreadable folders and files, links that loop or leave the
 * source); a problem with relPath '.' means the source folder could not be listed.
 */
export async function walkSourceFolders(
  root: string,
  include: string[],
  ignore: string[],
  opts: WalkOptions,
  folder: (rel: string, files: FolderFiles, absPrefix: string) => void,
): Promise<ScanProblem[]> {
  const rules = SourceRules.open(root, include, ignore, opts);
  if (!(rules instanceof SourceRules)) return [rules];
  const problems: ScanProblem[] = [];
  const byName = rules.takesEveryName;
  const names: string[] = [];
  const stats: number[] = [];
  const files: FolderFiles = { names, stats };
  // Plain files of the folder being read, stat'ed here or by the stat thread.
  const plain: string[] = [];
  const todo: Pending[] = [{ abs: root, rel: '', nested: false }];
  const slices = new TimeSlices();
  let found = 0;
  let helper: StatHelper | undefined;
  // Started once at most: where no thread can be started, the walk does not try at every folder.
  let helperTried = false;
  const statHere = (rel: string, prefix: string, toStat: readonly string[]) => {
    for (const name of toStat) {
      const st = statSourceFile(prefix + name, relPathIn(rel, name));
      if (st && 'reason' in st) problems.push(st);
      else if (st) {
        names.push(name);
        stats.push(st.size, st.mtimeMs, st.ino, st.ctimeMs);
      }
    }
    folder(rel, files, prefix);
  };
  const statted = (a: StattedFolder) => {
    names.length = 0;
    stats.length = 0;
    a.names.forEach((name, k) => {
      const at = k * NUMBERS_PER_FILE;
      const size = a.stats[at]!;
      if (size === FAILED) problems.push(unreadableFile(relPathIn(a.rel, name), a.codes[k]));
      else if (size !== GONE) {
        names.push(name);
        stats.push(size, a.stats[at + 1]!, a.stats[at + 2]!, a.stats[at + 3]!);
      }
    });
    folder(a.rel, files, a.prefix);
  };
  const restat = (h: HandedFolder) => {
    names.length = 0;
    stats.length = 0;
    statHere(h.rel, h.prefix, h.names);
  };
  try {
    for (let next = todo.pop(); next; next = todo.pop()) {
      const { abs, rel, nested } = next;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(abs, { withFileTypes: true });
      } catch (err) {
        // A folder removed meanwhile is listed empty (its files are gone); others are reported.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') entries = [];
        else {
          problems.push(unreadableFolder(rel, err as NodeJS.ErrnoException));
          continue;
        }
      }
      names.length = 0;
      stats.length = 0;
      plain.length = 0;
      const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
      for (const e of entries) {
        const name = e.name;
        // What the sync's walk never takes: dot entries (fast-glob's dot: false) and default ignores,
        // for a folder all it holds.
        if (name.charCodeAt(0) === 0x2e || isDefaultIgnored(name)) continue;
        if (e.isDirectory()) {
          const relPath = relPathIn(rel, name);
          if (nested || !rules.prunes(relPath)) todo.push({ abs: prefix + name, rel: relPath, nested });
          continue;
        }
        if (e.isSymbolicLink()) {
          const relPath = relPathIn(rel, name);
          if (rules.excluded(relPath)) continue;
          const link = rules.followLink(prefix + name, relPath);
          if (link?.kind === 'problem') problems.push(link.problem);
          else if (link?.kind === 'folder') todo.push({ abs: prefix + name, rel: relPath, nested: true });
          else if (link?.kind === 'file') {
            if (isSupportedExtension(extOf(name), opts.segmentFormats)) {
              names.push(name);
              stats.push(link.size, link.mtimeMs, link.ino, link.ctimeMs);
            } else opts.unsupported?.(relPath);
          }
          continue;
        }
        if (!e.isFile()) continue;
        // Files the service does not translate are not stat'ed (the sync lists them as unsupported).
        const supported = isSupportedExtension(extOf(name), opts.segmentFormats);
        if (!supported && !opts.unsupported) continue;
        if (!byName) {
          const relPath = relPathIn(rel, name);
          if (rules.excluded(relPath) || !rules.included(relPath)) continue;
        }
        if (!supported) opts.unsupported?.(relPathIn(rel, name));
        else plain.push(name);
      }
      found += names.length + plain.length;
      if (opts.statThread && !helperTried && found >= STAT_THREAD_AFTER && todo.length > 0) {
        helperTried = true;
        helper = StatHelper.start();
      }
      // A folder with links is stat'ed here: its files are handed over as one.
      const handed =
        helper !== undefined &&
        names.length === 0 &&
        plain.length > 0 &&
        helper.offer({ rel, prefix, names: plain.slice() });
      if (!handed) statHere(rel, prefix, plain);
      if (helper) for (const a of helper.answers()) statted(a);
      if (slices.due()) await slices.yield();
    }
  } catch (err) {
    helper?.close();
    throw err;
  }
  if (helper) {
    const { answered, unanswered } = await helper.finish();
    answered.forEach(statted);
    unanswered.forEach(restat);
  }
  return problems;
}
