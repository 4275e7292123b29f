import fs from 'node:fs';
import path from 'node:path';
import micromatch from 'micromatch';
import { documentBySegments, formatOf, isServiceFormat } from '../../documents/format-registry.js';
import { PART_SUFFIX } from '../../util/part-file.js';
import { BESIDE_IGNORES, isBesideName } from '../edited-names.js';
import { extOf } from './fingerprint.js';
import { isDynamicPattern } from '../../util/glob-pattern.js';

// Which entries of a source folder are source files: default ignores, include/exclude patterns,
// symbolic links (followed inside the source, reported when they leave it or loop), unreadable
// entries reported. Shared by the sync's listing (list-sources.ts) and watch's poll walk
// (watch/folder-walk.ts), so that both take exactly the same files.

/**
 * Ignored in every source folder: editor lock files, temp files, OS litter, our own partial files and
 * the files we put beside an output a person edited (../edited-names.ts).
 */
export const DEFAULT_IGNORES = [
  '**/~$*',
  '**/.~lock.*#',
  '**/*.tmp',
  '**/.DS_Store',
  '**/Thumbs.db',
  '**/desktop.ini',
  `**/*${PART_SUFFIX}`,
  ...BESIDE_IGNORES,
];

/**
 * DEFAULT_IGNORES for one file or folder name, without a glob match per entry (the scan's hot path;
 * test/sync/scan.test.ts checks that both agree).
 */
export function isDefaultIgnored(name: string): boolean {
  return (
    name.startsWith('~$') ||
    name.endsWith('.tmp') ||
    name.endsWith(PART_SUFFIX) ||
    (name.startsWith('.~lock.') && name.endsWith('#')) ||
    name === '.DS_Store' ||
    name === 'Thumbs.db' ||
    name === 'desktop.ini' ||
    isBesideName(name)
  );
}

export interface ScanProblem {
  relPath: string;
  reason: 'unreadable' | 'symlink-loop' | 'link-outside' | 'unsupported';
  message: string;
}

export interface ListOptions {
  /** Follow symbolic links that lead outside the source folder (the mapping's links_outside_source). */
  followLinksOutside?: boolean;
  /**
   * A target of the mapping is translated segment by segment (method: segments): the formats only the
   * document layer reads (Markdown, string files) are sources too.
   */
  segmentFormats?: boolean;
}

/** Whether a file is a source: a document the service translates, or (segmentFormats) one the document layer reads. */
export function isSupportedExtension(ext: string, segmentFormats = false): boolean {
  if (isServiceFormat(ext) || documentBySegments(ext)) return true;
  return segmentFormats && formatOf(ext) !== undefined;
}

/** Why a file is not a source, for people (.md under method: document names the method that takes it). */
export function unsupportedMessage(ext: string): string {
  if (!ext) return 'no file extension';
  if (formatOf(ext)?.strings)
    return `.${ext} files are string files, translated only with method: segments and an output with the language in its name, e.g. locales/{lang_bcp47}.${ext} (docs/strings/README.md)`;
  if (isSupportedExtension(ext, true))
    return `.${ext} files are translated only with method: segments (docs/segments.md), not by the document service`;
  return `.${ext} files are not translated by the service`;
}

/** A file the service does not translate, as a problem; undefined for a document. */
export function unsupportedProblem(relPath: string, segmentFormats = false): ScanProblem | undefined {
  const ext = extOf(relPath);
  if (isSupportedExtension(ext, segmentFormats)) return undefined;
  return { relPath, reason: 'unsupported', message: unsupportedMessage(ext) };
}

export function isInsideOrSame(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The problem of a source entry reached through a link that leads outside the source folder
 * (`/etc/passwd` linked into a shared folder must not be uploaded and billed without a word), or
 * undefined when it stays inside or such links are allowed.
 */
export function linkOutsideProblem(
  relPath: string,
  real: string,
  rootReal: string,
  opts: ListOptions,
): ScanProblem | undefined {
  if (opts.followLinksOutside || isInsideOrSame(rootReal, real)) return undefined;
  return {
    relPath,
    reason: 'link-outside',
    message: `symbolic link leads outside the source folder (to ${real}): skipped; set links_outside_source: follow on the mapping to translate it`,
  };
}

/** What a symbolic link in a source folder comes to. */
export type LinkOutcome =
  | { kind: 'file'; size: number; mtimeMs: number; ino: number; ctimeMs: number }
  | { kind: 'folder'; real: string }
  | { kind: 'problem'; problem: ScanProblem }
  | undefined;

/**
 * Pattern options under which '*' and '**' also match names with a line break in them (any name a
 * file system takes): picomatch builds its regular expression with these flags ('s': '.' matches a
 * line break too); @types/micromatch types `flags` as a boolean, hence the cast.
 */
export function anyName(opts: micromatch.Options): micromatch.Options {
  return { ...opts, flags: 's' } as unknown as micromatch.Options;
}

/**
 * fast-glob's rule for the exclude patterns that stop it reading a folder at all (a last segment
 * `**`, or one without glob characters, such as `drafts/**` or `**\/drafts`): the listing's walk of
 * the source folder does not enter a folder such a pattern matches (files below a folder matched by
 * `**\/drafts` are therefore left out, though the pattern matches no file). Braces are expanded first,
 * as fast-glob does.
 */
function prunePatterns(patterns: string[]): string[] {
  return patterns
    .flatMap((p) => micromatch.braces(p, { expand: true, nodupes: true, keepEscaping: true }))
    .filter((p) => p !== '')
    .map((p) => p.replace(/(?!^)\/{2,}/g, '/'))
    .filter((p) => p.endsWith('/**') || !isDynamicPattern(path.posix.basename(p)));
}

/**
 * The rules of one listing of a source folder. `ignore` are extra glob patterns relative to the
 * folder (the mapping's exclude, output folders inside the source).
 */
export class SourceRules {
  /** The exclude patterns, without the default ignores (these are name checks: isDefaultIgnored). */
  readonly excludes: string[];
  /** Real paths of the folders walked through links (and the source folder): a second link is a loop. */
  private readonly visited: Set<string>;
  private readonly everything: boolean;
  private readonly inc: Array<(p: string) => boolean>;
  private readonly exc: Array<(p: string) => boolean>;
  private readonly prune: Array<(p: string) => boolean>;

  private constructor(
    readonly rootReal: string,
    include: string[],
    ignore: string[],
    private readonly opts: ListOptions,
  ) {
    this.visited = new Set([rootReal]);
    this.excludes = ignore.filter((p) => !DEFAULT_IGNORES.includes(p));
    this.everything = include.length === 0 || include.every((p) => p === '**/*' || p === '**');
    this.inc = include.map((p) => micromatch.matcher(p, anyName({ dot: false })));
    this.exc = this.excludes.map((p) => micromatch.matcher(p, anyName({ dot: true })));
    this.prune = prunePatterns(this.excludes).map((p) =>
      micromatch.matcher(p, anyName({ dot: false, posix: true })),
    );
  }

  /** The rules for `sourceDir`, or the problem that it cannot be listed at all. */
  static open(
    sourceDir: string,
    include: string[],
    ignore: string[],
    opts: ListOptions,
  ): SourceRules | ScanProblem {
    try {
      return new SourceRules(fs.realpathSync(sourceDir), include, ignore, opts);
    } catch (err) {
      return {
        relPath: '.',
        reason: 'unreadable',
        message: `source folder ${sourceDir}: ${(err as Error).message}`,
      };
    }
  }

  /** Do the include patterns take this file (path from the source folder)? */
  included(relPath: string): boolean {
    return this.everything || this.inc.some((f) => f(relPath));
  }

  /** Is a file or link left out by an exclude pattern or a default ignore (by its name)? */
  ignored(relPath: string): boolean {
    return isDefaultIgnored(path.posix.basename(relPath)) || this.excluded(relPath);
  }

  /** Is a file or link left out by an exclude pattern? */
  excluded(relPath: string): boolean {
    return this.exc.length > 0 && this.exc.some((f) => f(relPath));
  }

  /** Does the walk of the source folder skip this folder (not below a link) whole? See prunePatterns. */
  prunes(relDir: string): boolean {
    return this.prune.length > 0 && this.prune.some((f) => f(relDir));
  }

  /** Are the files of a folder all taken by name alone (no include or exclude pattern to match)? */
  get takesEveryName(): boolean {
    return this.everything && this.exc.length === 0;
  }

  /**
   * Follow the symbolic link `abs`: a file (when included), a folder to walk (not one already walked,
   * nor one that holds it: a loop), a problem, or nothing to take.
   */
  followLink(abs: string, relPath: string): LinkOutcome {
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return {
        kind: 'problem',
        problem: {
          relPath,
          reason: code === 'ELOOP' ? 'symlink-loop' : 'unreadable',
          message: `symbolic link cannot be followed: ${code ?? (err as Error).message}`,
        },
      };
    }
    const real = fs.realpathSync(abs);
    const outside = linkOutsideProblem(relPath, real, this.rootReal, this.opts);
    if (outside)
      return st.isDirectory() || this.included(relPath) ? { kind: 'problem', problem: outside } : undefined;
    if (st.isFile())
      return this.included(relPath)
        ? { kind: 'file', size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs }
        : undefined;
    if (!st.isDirectory()) return undefined;
    const parentReal = fs.realpathSync(path.dirname(abs));
    if (this.visited.has(real) || isInsideOrSame(real, this.rootReal) || isInsideOrSame(real, parentReal))
      return {
        kind: 'problem',
        problem: {
          relPath,
          reason: 'symlink-loop',
          message: `symbolic link to a folder already scanned (${real}): not followed`,
        },
      };
    this.visited.add(real);
    return { kind: 'folder', real };
  }
}

/** size and mtime of a file (lstat), the problem when it cannot be read, undefined when it is gone. */
export function statSourceFile(abs: string, relPath: string): fs.Stats | ScanProblem | undefined {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch (err) {
    return unreadableFile(relPath, (err as NodeJS.ErrnoException).code);
  }
}

/** A file that cannot be stat'ed (`code`: its error's code). */
export function unreadableFile(relPath: string, code: string | undefined): ScanProblem {
  return { relPath, reason: 'unreadable', message: `cannot be read: ${code}` };
}

/** A folder that cannot be read (listed as a problem, never as a folder whose files are gone). */
export function unreadableFolder(relPath: string, err: NodeJS.ErrnoException): ScanProblem {
  return {
    relPath: relPath || '.',
    reason: 'unreadable',
    message: `folder cannot be read: ${err.code ?? err.message}`,
  };
}
