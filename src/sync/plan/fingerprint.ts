import { createHash } from 'node:crypto';
import path from 'node:path';
import type { UploadDocumentRequest } from '../../api/types.js';
import { defaultOutputExtension } from '../../documents/format-registry.js';
import type { FormatOptions } from '../../documents/format-options.js';
import { formatOptionsOf } from '../../manifest/sections/csv.js';
import type { Mapping, Target } from '../../manifest/sections/mapping.js';
import { methodForFile } from './file-method.js';

// The settings that shape a translation. Identical content (sha256) with an identical fingerprint
// gives an identical output: it is translated once and reused. The base fingerprint leaves out the
// style list's content: equal base with a different full fingerprint means "stale" (the list changed).

export interface StyleRef {
  key: string;
  /** style_id to send with uploads (undefined: the list is not on the service yet — dry run). */
  styleId: string | undefined;
  /** Content hash of the applied list (changes when its rules change). */
  hash: string;
}

/** A glossary of the manifest as a target uses it: one dictionary (language pair) of it. */
export interface GlossaryRef {
  key: string;
  /** glossary_id to send with uploads (undefined: not on the service yet — dry run). */
  glossaryId: string | undefined;
  /** Content hash of the applied dictionary of the target's pair (changes when its entries change). */
  hash: string;
}

export interface Settings {
  targetLang: string;
  sourceLang: string | undefined;
  formality: string | undefined;
  glossaryId: string | undefined;
  outputExt: string;
  style: StyleRef | undefined;
  /** A glossary of the manifest (`glossary:`); glossaryId is then the one it has on the service. */
  glossary?: GlossaryRef | undefined;
  /** Translated through the segment path (method: segments, docs/segments.md); absent: documents. */
  segments?: true;
  /** How the document is read, for formats whose files need the mapping's word (a CSV's columns). */
  read?: FormatOptions;
}

/** Extension of a file name without the dot, lower-case ('' when none). */
export function extOf(file: string): string {
  return path.extname(file).slice(1).toLowerCase();
}

/** The output extension of a source for a target: output_format, else same as input (doc → docx). */
export function outputExtFor(sourceExt: string, target: Target): string {
  return (target.output_format ?? defaultOutputExtension(sourceExt)).toLowerCase().replace(/^\./, '');
}

export function settingsFor(
  mapping: Mapping,
  target: Target,
  sourceExt: string,
  style: StyleRef | undefined,
  glossary?: GlossaryRef,
): Settings {
  return {
    targetLang: target.lang,
    sourceLang: mapping.source_lang,
    formality: target.formality,
    glossaryId: glossary ? glossary.glossaryId : target.glossary_id,
    outputExt: outputExtFor(sourceExt, target),
    style,
    ...(glossary ? { glossary } : {}),
    ...(methodForFile(mapping, target, sourceExt) === 'segments' ? { segments: true as const } : {}),
    ...readOptions(mapping, sourceExt),
  };
}

function readOptions(mapping: Mapping, sourceExt: string): { read?: FormatOptions } {
  const read = formatOptionsOf(mapping, sourceExt);
  return read ? { read } : {};
}

function digest(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/**
 * A glossary of the manifest counts by its key (its glossary_id may change when it is made again
 * without changing a term); its content by its hash in the full fingerprint. Settings without one
 * give the digests they always gave.
 */
export function baseFingerprint(s: Settings): string {
  return digest([
    1,
    s.targetLang,
    s.sourceLang ?? null,
    s.formality ?? null,
    s.glossary ? null : (s.glossaryId ?? null),
    s.outputExt,
    s.style?.key ?? null,
    ...(s.glossary ? [`glossary:${s.glossary.key}`] : []),
    // Another method gives another output (its own translation of each segment).
    ...(s.segments ? ['method:segments'] : []),
    // Other columns of a CSV file give another output; the translation of a text stays the same.
    ...(s.read ? [`read:${JSON.stringify(s.read)}`] : []),
  ]);
}

export function fullFingerprint(s: Settings): string {
  return digest([baseFingerprint(s), s.style?.hash ?? null, ...(s.glossary ? [s.glossary.hash] : [])]);
}

/**
 * What changes the translation of one segment (the segment memory's settings, docs/segments.md):
 * languages, formality, the glossary's and the style list's content; not the output's format or path.
 */
export function translationSettings(s: Settings): string {
  return digest([
    1,
    s.targetLang,
    s.sourceLang ?? null,
    s.formality ?? null,
    // Content, not names: two lists with the same rules translate alike.
    s.glossary ? `glossary:${s.glossary.hash}` : (s.glossaryId ?? null),
    s.style?.hash ?? null,
  ]);
}

/** Why an output made with other settings of the same base is stale, for people. */
export function staleReason(uses: { style?: string | undefined; glossary?: string | undefined }): string {
  if (uses.glossary && uses.style) return 'style list or glossary changed';
  return uses.glossary ? 'glossary changed' : 'style list changed';
}

/** The upload request for these settings (languages upper-case as the service expects). */
export function uploadRequest(s: Settings, sourceExt: string, filename: string): UploadDocumentRequest {
  const req: UploadDocumentRequest = { target_lang: s.targetLang.toUpperCase(), filename };
  if (s.sourceLang) req.source_lang = s.sourceLang.toUpperCase();
  if (s.formality) req.formality = s.formality as UploadDocumentRequest['formality'];
  if (s.glossaryId) req.glossary_id = s.glossaryId;
  if (s.outputExt !== defaultOutputExtension(sourceExt)) req.output_format = s.outputExt;
  if (s.style?.styleId) req.style_id = s.style.styleId;
  if (s.segments) req.segments = { settings: translationSettings(s), ...(s.read ? { read: s.read } : {}) };
  return req;
}
