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
} from '../sync/plan/source-rules.js';
import { extOf } from '../sync/plan/fingerprint.js';
import type { FolderFiles } from './folder-snapshot.js';

// Poll mode's walk of a source folder, one folder at a time: each folder is read (one readdir) and
// its files stat'ed, and handed over with their names, sizes, mtimes, inodes and ctimes before the next folder is
// read. Nothing is kept per file beyond the folder being read: no listing of the whole tree, no
// object per file, no sort (the sync's listing, list-sources.ts, builds all three). Which entries
// are source files is decided by source-rules.ts, the same rules as the sync's listing.

/** Work done between two yields to the event loop (/healthz and /metrics answer meanwhile). */
const SLICE_MS = 10;

interface Pending {
  abs: string;
  rel: string;
  /** Reached through a symbolic link: exclude patterns are matched on files, no folder is skipped whole. */
  nested: boolean;
}

/**
 * Walk the source folder `root`, calling `folder` for each folder read (with its source files, maybe
 * none). Returns the problems met (unreadable folders and files, links that loop or leave the
 * source); a problem with relPath '.' means the source folder could not be listed.
 */
export async function walkSourceFolders(
  root: string,
  include: string[],
  ignore: string[],
  opts: ListOptions,
  folder: (rel: string, files: FolderFiles) => void,
): Promise<ScanProblem[]> {
  const rules = SourceRules.open(root, include, ignore, opts);
  if (!(rules instanceof SourceRules)) return [rules];
  const problems: ScanProblem[] = [];
  const byName = rules.takesEveryName;
  const names: string[] = [];
  const stats: number[] = [];
  const files: FolderFiles = { names, stats };
  const todo: Pending[] = [{ abs: root, rel: '', nested: false }];
  let sliceStart = performance.now();
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
      const relPath = rel === '' ? name : `${rel}/${name}`;
      if (e.isDirectory()) {
        if (nested || !rules.prunes(relPath)) todo.push({ abs: prefix + name, rel: relPath, nested });
        continue;
      }
      if (e.isSymbolicLink()) {
        if (rules.excluded(relPath)) continue;
        const link = rules.followLink(prefix + name, relPath);
        if (link?.kind === 'problem') problems.push(link.problem);
        else if (link?.kind === 'folder') todo.push({ abs: prefix + name, rel: relPath, nested: true });
        else if (link?.kind === 'file' && isSupportedExtension(extOf(name))) {
          names.push(name);
          stats.push(link.size, link.mtimeMs, link.ino, link.ctimeMs);
        }
        continue;
      }
      // Files the service does not translate are not looked at (the sync lists them as unsupported).
      if (!e.isFile() || !isSupportedExtension(extOf(name))) continue;
      if (!byName && (rules.excluded(relPath) || !rules.included(relPath))) continue;
      const st = statSourceFile(prefix + name, relPath);
      if (st && 'reason' in st) problems.push(st);
      else if (st) {
        names.push(name);
        stats.push(st.size, st.mtimeMs, st.ino, st.ctimeMs);
      }
    }
    folder(rel, files);
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return problems;
}
