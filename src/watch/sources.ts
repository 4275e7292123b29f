import path from 'node:path';
import micromatch from 'micromatch';
import { outputRoot } from '../manifest/paths.js';
import { usesSegments } from '../manifest/sections/mapping.js';
import type { LoadedManifest } from '../manifest/types.js';
import { DEFAULT_IGNORES } from '../sync/plan/list-sources.js';
import { anyName } from '../sync/plan/source-rules.js';

// Which files of the watched folders are sources of which mapping (the same include/exclude and
// default ignores as the scan), and which folders are never watched (output roots and the state
// folder inside a source folder).

export interface WatchedSource {
  mapping: string;
  /** Absolute source folder. */
  root: string;
  /** Source path relative to root ('/' separators) → is it a source of this mapping? */
  accepts(relPath: string): boolean;
  /** Absolute folders inside root that are not sources (output roots, state folder). */
  skipDirs: string[];
  /** The mapping's include patterns, and what its listing ignores (exclude, skipDirs as globs). */
  include: string[];
  ignore: string[];
  /** The mapping's links_outside_source is follow. */
  followLinksOutside: boolean;
  /** A target is translated segment by segment: the formats only the document layer reads are sources too. */
  segmentFormats?: boolean;
  /** The mapping's allow_missing: its folder being away is no problem to report (a removable share). */
  allowMissing?: boolean;
}

export interface SourceRef {
  mapping: string;
  relPath: string;
}

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function watchedSources(loaded: LoadedManifest): WatchedSource[] {
  const stateDir = path.dirname(loaded.statePath);
  return loaded.manifest.mappings.map((m) => {
    const root = path.resolve(loaded.dir, m.source);
    const everything = m.include.length === 0 || m.include.every((p) => p === '**/*' || p === '**');
    const inc = m.include.map((p) => micromatch.matcher(p, anyName({ dot: false })));
    const ign = [...DEFAULT_IGNORES, ...m.exclude].map((p) => micromatch.matcher(p, anyName({ dot: true })));
    const included = (rel: string) => inc.some((f) => f(rel));
    const ignored = (rel: string) => ign.some((f) => f(rel));
    const skipDirs = [
      stateDir,
      ...m.targets.map((t) => path.resolve(loaded.dir, outputRoot(t.output ?? m.output))),
    ].filter((d) => inside(root, d) && d !== root);
    return {
      mapping: m.name,
      root,
      accepts: (rel) => (everything || included(rel)) && !ignored(rel),
      skipDirs,
      include: m.include,
      ignore: [...m.exclude, ...skipDirs.map((d) => `${toRel(root, d)}/**`)],
      followLinksOutside: m.links_outside_source === 'follow',
      segmentFormats: usesSegments(m),
      allowMissing: m.allow_missing === true,
    };
  });
}

function toRel(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** The mappings an absolute path is a source of (several mappings may share a folder). */
export function locate(sources: WatchedSource[], abs: string): SourceRef[] {
  const out: SourceRef[] = [];
  for (const s of sources) {
    if (!inside(s.root, abs) || abs === s.root) continue;
    if (s.skipDirs.some((d) => inside(d, abs))) continue;
    const relPath = toRel(s.root, abs);
    if (relPath.split('/').some((seg) => seg.startsWith('.'))) continue;
    if (s.accepts(relPath)) out.push({ mapping: s.mapping, relPath });
  }
  return out;
}

/** Is this absolute path (file or folder) outside everything worth watching? */
export function unwatched(sources: WatchedSource[], abs: string): boolean {
  return !sources.some(
    (s) =>
      (inside(s.root, abs) || inside(abs, s.root)) &&
      !s.skipDirs.some((d) => inside(d, abs)) &&
      !(
        inside(s.root, abs) &&
        abs !== s.root &&
        path
          .relative(s.root, abs)
          .split(path.sep)
          .some((seg) => seg.startsWith('.'))
      ),
  );
}

/**
 * The recorded source files (absolute paths) of every mapping at or below `absDir`: what a folder
 * that went away held (`recorded(mapping)`: the relative paths the state knows).
 */
export function recordedUnder(
  sources: WatchedSource[],
  absDir: string,
  recorded: (mapping: string) => Iterable<string>,
): string[] {
  const out: string[] = [];
  for (const s of sources) {
    if (!inside(s.root, absDir)) continue;
    const prefix = absDir === s.root ? '' : `${toRel(s.root, absDir)}/`;
    for (const rel of recorded(s.mapping))
      if (rel.startsWith(prefix)) out.push(path.join(s.root, ...rel.split('/')));
  }
  return out;
}
