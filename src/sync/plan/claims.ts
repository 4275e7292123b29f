import type { FoundFile } from './list-sources.js';
import type { Mapping } from '../../manifest/sections/mapping.js';
import { extOf } from './fingerprint.js';
import type { TargetSettings } from './settings.js';

// Who claims each output path: the first (mapping, file, target) that renders to it. A second source
// rendering to the same path is a collision and never overwrites it; a deleted source's outputs are
// only removed while no live source claims them.

export class OutputClaims {
  /** output → `mapping\0file\0target index` */
  private readonly owner = new Map<string, string>();
  /**
   * Mappings whose outputs a no-op scan did not claim yet (claimed when later work needs it): the
   * files of a no-op path (`defer`), and files found up to date one by one (`deferFile`).
   */
  private readonly unclaimed = new Map<
    string,
    { m: Mapping; files: () => Iterable<string>; more: string[] }
  >();

  constructor(private readonly settings: () => TargetSettings) {}

  static key(mapping: string, relPath: string, ti: number): string {
    return `${mapping}\0${relPath}\0${ti}`;
  }

  /**
   * Claim `output` for `key`; answers the other claimant ("mapping/file") when it is taken.
   * `mayBeDeferred` tells whether the output could be one whose claim waits: every deferred output
   * was found on disk and made from its own file (that is what let its scan defer it), so an output
   * not on disk, or made from the claiming file, cannot be, and the deferred claims (100,000s after
   * a no-op scan) are not made for it.
   */
  claim(output: string, key: string, mayBeDeferred?: () => boolean): string | undefined {
    if (mayBeDeferred === undefined || mayBeDeferred()) this.claimSkipped();
    const owner = this.owner.get(output);
    if (owner !== undefined && owner !== key) {
      const [om, of] = owner.split('\0');
      return `${om}/${of}`;
    }
    this.owner.set(output, key);
    return undefined;
  }

  /** Whether a live source other than (mapping, relPath) claims `output`. */
  claimedByOther(output: string, mapping: string, relPath: string): boolean {
    this.claimSkipped();
    const owner = this.owner.get(output);
    return owner !== undefined && !owner.startsWith(`${mapping}\0${relPath}\0`);
  }

  /** A source is gone: its claims end. */
  release(mapping: string, relPath: string): void {
    const prefix = `${mapping}\0${relPath}\0`;
    for (const [out, owner] of this.owner) if (owner.startsWith(prefix)) this.owner.delete(out);
  }

  /** A mapping's scan took the no-op fast path: its outputs are claimed only when needed. */
  defer(m: Mapping, files: () => Iterable<string>): void {
    this.unclaimed.set(m.name, { m, files, more: [] });
  }

  /**
   * A file whose outputs were all found made from it (their latest done jobs are its own): no other
   * live source can hold them (planning such a source finds this one holding them), so they are
   * claimed as a no-op scan's are, when later work needs it, not held as 100,000s of claims.
   */
  deferFile(m: Mapping, f: FoundFile): void {
    const cur = this.unclaimed.get(m.name);
    if (cur) cur.more.push(f.relPath);
    else this.unclaimed.set(m.name, { m, files: () => [], more: [f.relPath] });
  }

  private claimSkipped(): void {
    if (this.unclaimed.size === 0) return;
    const skipped = [...this.unclaimed.values()];
    this.unclaimed.clear();
    const settings = this.settings();
    for (const { m, files, more } of skipped) {
      for (const relPath of [...files(), ...more]) {
        const ext = extOf(relPath);
        for (let ti = 0; ti < m.targets.length; ti++) {
          let output: string;
          try {
            output = settings.outputOf(m, ti, relPath, ext);
          } catch {
            continue; // rendered when the snapshot was taken: cannot happen
          }
          if (!this.owner.has(output)) this.owner.set(output, OutputClaims.key(m.name, relPath, ti));
        }
      }
    }
  }
}
