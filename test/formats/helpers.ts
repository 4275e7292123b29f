// Shared by the format tests: translate a sample (or any file) through the engine into a temp dir.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { createEngine } from '../../src/local-service/engine/index.js';
import type { EngineOptions, EngineStyle } from '../../src/local-service/engine/types.js';
import { Phrasebook } from '../../src/local-service/engine/phrasebook.js';
import { pseudoTag } from '../../src/local-service/engine/pseudo.js';
import type { GlossaryTerms } from '../../src/local-service/glossary-entries.js';

export const SAMPLES = resolve(import.meta.dirname, '../../samples');
export const PHRASEBOOK = join(SAMPLES, 'phrasebook.yaml');
export const phrasebook = Phrasebook.load(PHRASEBOOK);

/** A style list with 24-hour clock and curly quotation marks and apostrophes. */
export const STYLE_24H_CURLY: EngineStyle = {
  configured_rules: {
    dates_and_times: { time_format: 'use_24_hour_clock' },
    punctuation: { quotation_mark: 'use_curly_quotation_marks', apostrophe: 'use_curly_apostrophes' },
  },
  custom_instructions: [],
};

export interface Workdir {
  dir: string;
  /** Translates `path` (absolute) into the work dir; returns the output path and billed characters. */
  translate(
    path: string,
    lang: string,
    opts?: { style?: EngineStyle; outExt?: string; engine?: EngineOptions; glossary?: GlossaryTerms },
  ): Promise<{ out: string; characters: number }>;
  /** Writes a file into the work dir and returns its path. */
  file(name: string, content: string | Buffer): Promise<string>;
  cleanup(): Promise<void>;
}

export async function workdir(): Promise<Workdir> {
  const dir = await mkdtemp(join(tmpdir(), 'locsync-formats-'));
  let n = 0;
  return {
    dir,
    async translate(path, lang, opts = {}) {
      const engine = createEngine({ phrasebookPath: PHRASEBOOK, ...opts.engine });
      const ext = extname(path).slice(1).toLowerCase();
      const outExt = opts.outExt ?? (ext === 'doc' ? 'docx' : ext);
      const out = join(dir, `out-${++n}.${outExt}`);
      const result = await engine.translateDocument(
        { path, ext, filename: path.split('/').pop() as string },
        { path: out, ext: outExt },
        {
          targetLang: lang,
          sourceLang: 'en',
          ...(opts.style ? { style: opts.style } : {}),
          ...(opts.glossary ? { glossary: opts.glossary } : {}),
        },
      );
      return { out, characters: result.characters };
    },
    async file(name, content) {
      const p = join(dir, name);
      await writeFile(p, content);
      return p;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** True when `text` is the engine's pseudo-localisation for `lang` (tag present, source not verbatim). */
export function isPseudo(text: string, lang: string, source?: string): boolean {
  return text.includes(pseudoTag(lang)) && (source === undefined || !text.includes(source));
}

/**
 * Checks one translated segment: a phrasebook hit is the exact phrasebook translation, anything else
 * with letters is pseudo-localised. Returns a description of the mismatch, or undefined.
 */
export function checkSegment(source: string, translated: string, lang: string): string | undefined {
  if (source.trim() === '')
    return translated === source ? undefined : `blank segment changed: ${JSON.stringify(translated)}`;
  const hit = phrasebook.lookup(source, lang);
  if (hit !== undefined) {
    return translated.trim() === hit
      ? undefined
      : `expected phrasebook ${JSON.stringify(hit)}, got ${JSON.stringify(translated)}`;
  }
  if (!/\p{L}/u.test(source)) return undefined;
  return isPseudo(translated, lang)
    ? undefined
    : `not pseudo-localised: ${JSON.stringify(source)} -> ${JSON.stringify(translated)}`;
}

/** Sample documents (the phrasebook and README are not documents), sorted. */
export function sampleFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/^(phrasebook\.|README\.md$)/.test(e.name)) out.push(p);
    }
  };
  walk(SAMPLES);
  return out.sort();
}
