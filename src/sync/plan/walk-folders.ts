import fs from 'node:fs';
import path from 'node:path';
import {
  isDefaultIgnored,
  isSupportedExtension,
  SourceRules,
  statSourceFile,
  unreadableFolder,
  type ListOptions,
  type ScanProblem,
} from './source-rules.js';
import { extOf } from './fingerprint.js';
import { TimeSlices } from '../../util/time-slices.js';

// The walk of a source folder, one folder at a time: each folder is read (one readdir) and its files
// stat'ed, and handed over with their names, sizes, mtimes, inodes and ctimes before the next folder
// is read. Nothing is kept per file beyond the folder being read (watch's poll mode keeps no listing
// of the whole tree; the sync's listing, list-sources.ts, builds its own from the folders). Which
// entries are source files is decided by source-rules.ts. Synchronous reads a folder at a time: one
// readdir and a stat per file cost less than the callbacks of asynchronous ones, and the event loop
// gets a turn between slices of work.

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
}

/** A file's path relative to the source folder, from its folder's and its own name. */
export const relPathIn = (rel: string, name: string): string => (rel === '' ? name : `${rel}/${name}`);

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
  const todo: Pending[] = [{ abs: root, rel: '', nested: false }];
  const slices = new TimeSlices();
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
    const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
    for (const e of entries) {
      const name = e.name;
      // What the sync's walk never takes: dot entries (fast-glob's dot: false) and default ignores,
      // for a folder all it holds.
      if (name.charCodeAt(0) === 0x2e || isDefaultIgnored(name)) continue;
      const relPath = relPathIn(rel, name);
      if (e.isDirectory()) {
        if (nested || !rules.prunes(relPath)) todo.push({ abs: prefix + name, rel: relPath, nested });
        continue;
      }
      if (e.isSymbolicLink()) {
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
      if (!byName && (rules.excluded(relPath) || !rules.included(relPath))) continue;
      if (!supported) {
        opts.unsupported?.(relPath);
        continue;
      }
      const st = statSourceFile(prefix + name, relPath);
      if (st && 'reason' in st) problems.push(st);
      else if (st) {
        names.push(name);
        stats.push(st.size, st.mtimeMs, st.ino, st.ctimeMs);
      }
    }
    folder(rel, files, prefix);
    if (slices.due()) await slices.yield();
  }
  return problems;
}
