import fs from 'node:fs';
import path from 'node:path';
import type { Mapping } from '../../manifest/sections/mapping.js';
import { outputRoot, singleSourceFile } from '../../manifest/paths.js';
import type { LoadedManifest } from '../../manifest/types.js';
import { outputPattern } from './settings.js';
import { outputFile } from '../../manifest/in-place-output.js';

// Where a manifest's folders lie and how they overlap: source folders, output roots, and the checks
// that keep outputs out of source folders. Computed once per mapping.

interface SourceRoot {
  name: string;
  abs: string;
  prefix: string;
  /** A one-file mapping's file (include: [en.json]): the only path of its folder that is a source. */
  file?: string;
}

/** Two absolute folders are the same or one lies inside the other. */
export function foldersOverlap(a: string, b: string): boolean {
  const inside = (child: string, parent: string) =>
    child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
  return a === b || inside(a, b) || inside(b, a);
}

export class ManifestFolders {
  private sourceRootsCache: SourceRoot[] | undefined;
  private readonly rootOverlap = new Map<Mapping, boolean[]>();
  private readonly sharedRoots = new Map<Mapping, boolean>();
  /** Output folder -> why writing into it would leave its output root ('' when it would not). */
  private readonly folderEscapes = new Map<string, string>();

  constructor(private readonly loaded: LoadedManifest) {}

  /** The manifest's folder: outputs are relative to it. */
  get base(): string {
    return this.loaded.dir;
  }

  sourceOf(m: Mapping): string {
    return path.resolve(this.loaded.dir, m.source);
  }

  /** Absolute path of an output (relative to the manifest folder, or absolute): as the writer resolves it. */
  abs(output: string): string {
    return path.resolve(this.loaded.dir, outputFile(output));
  }

  /** Absolute output root of each target of a mapping. */
  outputRoots(m: Mapping): string[] {
    return m.targets.map((t) => path.resolve(this.loaded.dir, outputRoot(outputPattern(m, t))));
  }

  /** Output folders inside the source folder, as patterns to leave out of the scan. */
  outputsInsideSource(m: Mapping): string[] {
    const src = this.sourceOf(m);
    const inside: string[] = [];
    for (const root of this.outputRoots(m)) {
      const rel = path.relative(src, root);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel))
        inside.push(`${rel.split(path.sep).join('/')}/**`);
    }
    return inside;
  }

  private sourceRoots(): SourceRoot[] {
    this.sourceRootsCache ??= this.loaded.manifest.mappings.map((mm) => {
      const abs = this.sourceOf(mm);
      const single = singleSourceFile(mm);
      return {
        name: mm.name,
        abs,
        prefix: abs + path.sep,
        ...(single ? { file: path.resolve(abs, single) } : {}),
      };
    });
    return this.sourceRootsCache;
  }

  /** The mapping whose source folder an absolute path lies in. */
  sourceRootOf(abs: string): string | undefined {
    for (const r of this.sourceRoots())
      if ((abs === r.abs || abs.startsWith(r.prefix)) && (r.file === undefined || abs === r.file))
        return r.name;
    return undefined;
  }

  /**
   * Whether outputs of (mapping, target) may land in a source folder: only when the target's output
   * root and some source folder overlap (every rendered output lies inside its root).
   */
  mayLandInSource(m: Mapping, ti: number): boolean {
    let flags = this.rootOverlap.get(m);
    if (!flags) {
      flags = this.outputRoots(m).map((root) => this.sourceRoots().some((r) => foldersOverlap(root, r.abs)));
      this.rootOverlap.set(m, flags);
    }
    return flags[ti] ?? true;
  }

  /**
   * Why an output of (mapping, target) cannot be written: a folder on its way (below the output
   * root) is a link that leads outside the root, and writing would go wherever the link points.
   * Undefined when the way stays inside. One look per output folder (cached for the run).
   */
  linkEscape(m: Mapping, ti: number, output: string): string | undefined {
    const root = this.outputRoots(m)[ti];
    if (root === undefined) return undefined;
    const folder = path.dirname(this.abs(output));
    let why = this.folderEscapes.get(folder);
    if (why === undefined) {
      why = escapeThroughLink(root, folder) ?? '';
      this.folderEscapes.set(folder, why);
    }
    return why || undefined;
  }

  /** Whether an output root of this mapping overlaps one of another mapping (outputs could collide). */
  sharesOutputRoots(m: Mapping): boolean {
    let shared = this.sharedRoots.get(m);
    if (shared === undefined) {
      const mine = this.outputRoots(m);
      shared = this.loaded.manifest.mappings.some(
        (other) =>
          other !== m && this.outputRoots(other).some((r) => mine.some((own) => foldersOverlap(own, r))),
      );
      this.sharedRoots.set(m, shared);
    }
    return shared;
  }
}

/**
 * The deepest existing folder from `folder` up to `root`, resolved (links followed), must lie inside
 * the resolved root: else the message naming the link's way out. Folders not made yet are made
 * inside whatever their existing parent resolves to, so checking the deepest existing one suffices.
 */
export function escapeThroughLink(root: string, folder: string): string | undefined {
  let rootReal: string;
  try {
    rootReal = fs.realpathSync(root);
  } catch {
    return undefined; // the root is made on the first write, with nothing in it yet
  }
  for (let dir = folder; foldersOverlap(dir, root) && dir.length >= root.length; dir = path.dirname(dir)) {
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue; // not there yet: its parent decides
    }
    if (real === rootReal || real.startsWith(rootReal + path.sep)) return undefined;
    return `output folder ${dir} leads outside the output root ${root} (to ${real}): nothing is written through it`;
  }
  return undefined;
}
