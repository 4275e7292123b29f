import { createHash } from 'node:crypto';
import path from 'node:path';
import { defaultOutputExtension, type UploadDocumentRequest } from '../api/types.js';
import type { Mapping, Target } from '../manifest/schema.js';

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

export interface Settings {
  targetLang: string;
  sourceLang: string | undefined;
  formality: string | undefined;
  glossaryId: string | undefined;
  outputExt: string;
  style: StyleRef | undefined;
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
): Settings {
  return {
    targetLang: target.lang,
    sourceLang: mapping.source_lang,
    formality: target.formality,
    glossaryId: target.glossary_id,
    outputExt: outputExtFor(sourceExt, target),
    style,
  };
}

function digest(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export function baseFingerprint(s: Settings): string {
  return digest([
    1,
    s.targetLang,
    s.sourceLang ?? null,
    s.formality ?? null,
    s.glossaryId ?? null,
    s.outputExt,
    s.style?.key ?? null,
  ]);
}

export function fullFingerprint(s: Settings): string {
  return digest([baseFingerprint(s), s.style?.hash ?? null]);
}

/** The upload request for these settings (languages upper-case as the service expects). */
export function uploadRequest(s: Settings, sourceExt: string, filename: string): UploadDocumentRequest {
  const req: UploadDocumentRequest = { target_lang: s.targetLang.toUpperCase(), filename };
  if (s.sourceLang) req.source_lang = s.sourceLang.toUpperCase();
  if (s.formality) req.formality = s.formality as UploadDocumentRequest['formality'];
  if (s.glossaryId) req.glossary_id = s.glossaryId;
  if (s.outputExt !== defaultOutputExtension(sourceExt)) req.output_format = s.outputExt;
  if (s.style?.styleId) req.style_id = s.style.styleId;
  return req;
}
