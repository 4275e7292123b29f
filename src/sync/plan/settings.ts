import { createHash } from 'node:crypto';
import type { Mapping, Target } from '../../manifest/sections/mapping.js';
import { renderOutputPath } from '../../manifest/paths.js';
import { inPlaceOutput, isOwnSource } from '../../manifest/in-place-output.js';
import { isInPlaceFormat } from '../../documents/format-registry.js';
import type { LoadedManifest } from '../../manifest/types.js';
import { glossaryPairOf } from '../../manifest/glossary-checks.js';
import type { AppliedGlossary, AppliedStyle, SyncState } from '../../state/types.js';
import {
  baseFingerprint,
  fullFingerprint,
  settingsFor,
  type GlossaryRef,
  type Settings,
  type StyleRef,
} from './fingerprint.js';

// The settings of every (mapping, target, source extension), their fingerprints and output paths,
// computed once per run. Style lists and glossary dictionaries enter through their applied content
// hash; one the reconciler would change but has not applied yet (a plan) makes its outputs stale-to-be.

/** The style reconciler's answer, as far as planning needs it. */
export interface PlanStyles {
  /** style_id per style list key. */
  styleIds: Record<string, string>;
  /** Lists whose change is pending (not applied): their outputs are planned as stale. */
  pendingChanges: string[];
  /** glossary_id per glossary key. */
  glossaryIds?: Record<string, string>;
  /** "key/en-de" of glossary dictionaries whose change is pending: their outputs are planned as stale. */
  pendingGlossaryPairs?: string[];
  /** Style lists drifted on the service (policy fail), by key: why their targets get no translation. */
  blocked?: Record<string, string>;
  /** The same for glossaries, by key. */
  blockedGlossaries?: Record<string, string>;
}

export interface TargetSettingsEntry {
  settings: Settings;
  fp: string;
  base: string;
  /**
   * With an explicit source_lang: the fingerprints of the same settings without it, as outputs made
   * before it was set have them (the service detected the language). Such an output was made from
   * the language now named, so naming it is no settings change; anything else that changed (a
   * glossary added to this target) still is.
   */
  detected?: { fp: string; base: string };
}

export class TargetSettings {
  private readonly cache = new Map<Mapping, Array<Map<string, TargetSettingsEntry>>>();
  private readonly signatures = new Map<Mapping, Map<string, number>>();

  private constructor(
    private readonly applied: Map<string, AppliedStyle | undefined>,
    private readonly styles: PlanStyles,
    private readonly appliedGlossaries: Map<string, AppliedGlossary | undefined>,
  ) {}

  /** Settings of a manifest's targets with the style lists applied in `state`. */
  static async load(loaded: LoadedManifest, state: SyncState, styles: PlanStyles): Promise<TargetSettings> {
    const keys = new Set<string>();
    for (const m of loaded.manifest.mappings) for (const t of m.targets) if (t.style) keys.add(t.style);
    const applied = new Map<string, AppliedStyle | undefined>();
    for (const key of keys) applied.set(key, await state.appliedStyle(key));
    const glossaries = new Map<string, AppliedGlossary | undefined>();
    for (const m of loaded.manifest.mappings)
      for (const t of m.targets)
        if (t.glossary && !glossaries.has(t.glossary))
          glossaries.set(t.glossary, await state.appliedGlossary(t.glossary));
    return new TargetSettings(applied, styles, glossaries);
  }

  /** The glossary dictionary a target uses (`glossary:`), with the hash of its applied entries. */
  private glossaryRef(m: Mapping, t: Target): GlossaryRef | undefined {
    if (!t.glossary || !m.source_lang) return undefined;
    const pair = glossaryPairOf(m.source_lang, t.lang);
    const applied = this.appliedGlossaries.get(t.glossary);
    const appliedHash = applied?.hashes[pair];
    const hash = this.styles.pendingGlossaryPairs?.includes(`${t.glossary}/${pair}`)
      ? `pending-change:${appliedHash ?? ''}`
      : (appliedHash ?? 'unapplied');
    return {
      key: t.glossary,
      glossaryId: this.styles.glossaryIds?.[t.glossary] ?? applied?.glossary_id,
      hash,
    };
  }

  private styleRef(key: string | undefined): StyleRef | undefined {
    if (!key) return undefined;
    const applied = this.applied.get(key);
    const hash = this.styles.pendingChanges.includes(key)
      ? `pending-change:${applied?.hash ?? ''}`
      : (applied?.hash ?? 'unapplied');
    return { key, styleId: this.styles.styleIds[key] ?? applied?.style_id, hash };
  }

  /**
   * Why a target gets no translation this run (its style list or glossary drifted on the service),
   * if it does not.
   */
  blockedReason(t: Target): string | undefined {
    return (
      (t.style ? this.styles.blocked?.[t.style] : undefined) ??
      (t.glossary ? this.styles.blockedGlossaries?.[t.glossary] : undefined)
    );
  }

  /** Settings and fingerprints of (mapping, target index, source extension). */
  of(m: Mapping, ti: number, ext: string): TargetSettingsEntry {
    let perTarget = this.cache.get(m);
    if (!perTarget) {
      perTarget = m.targets.map(() => new Map());
      this.cache.set(m, perTarget);
    }
    const byExt = perTarget[ti] as Map<string, TargetSettingsEntry>;
    let v = byExt.get(ext);
    if (!v) {
      const t = m.targets[ti] as Target;
      const settings = settingsFor(m, t, ext, this.styleRef(t.style), this.glossaryRef(m, t));
      v = { settings, fp: fullFingerprint(settings), base: baseFingerprint(settings) };
      if (settings.sourceLang !== undefined) {
        const detected = { ...settings, sourceLang: undefined };
        v.detected = { fp: fullFingerprint(detected), base: baseFingerprint(detected) };
      }
      byExt.set(ext, v);
    }
    return v;
  }

  /**
   * What a file's verified mark must equal for the no-op fast path: every target's output pattern and
   * settings fingerprint for files of this extension (a changed style list or pattern voids the marks).
   */
  signature(m: Mapping, ext: string): number {
    let byExt = this.signatures.get(m);
    if (!byExt) this.signatures.set(m, (byExt = new Map()));
    let sig = byExt.get(ext);
    if (sig === undefined) {
      const parts = m.targets.map((t, ti) => [outputPattern(m, t), this.of(m, ti, ext).fp]);
      // 48 bits of a sha256: an integer column, compared without a string per file.
      sig = parseInt(createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12), 16);
      byExt.set(ext, sig);
    }
    return sig;
  }

  /**
   * The output path of a source file for one target (throws OutputPathError when it would escape).
   * A file of a format that holds every language, rendered to itself, is written in place: the
   * output is the target's part of it (../../manifest/in-place-output.ts).
   */
  outputOf(m: Mapping, ti: number, relPath: string, ext: string): string {
    const t = m.targets[ti] as Target;
    const rendered = renderOutputPath(outputPattern(m, t), {
      lang: t.lang,
      relPath,
      mapping: m.name,
      outputExt: this.of(m, ti, ext).settings.outputExt,
    });
    return isInPlaceFormat(ext) && isOwnSource(rendered, m.source, relPath)
      ? inPlaceOutput(rendered, t.lang)
      : rendered;
  }
}

/** The output pattern of a target: its own, else its mapping's. */
export function outputPattern(m: Mapping, t: Target): string {
  return t.output ?? m.output;
}
