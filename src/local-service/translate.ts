// POST /v2/translate (style-rules spec endpoint 10; what the spec leaves open follows the real
// service's public reference: per-text detection and billed_characters, model_type_used,
// split_sentences, tag_handling with ignore_tags / translate="no", glossary_id, usage).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TEXT_REQUEST_LIMITS } from '../api/types.js';
import { getContext } from './context.js';
import type { Engine, EngineStyle, TranslateOptions } from './engine/types.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { resolveGlossary } from './glossaries.js';
import { baseLanguage } from '../documents/language-tag.js';
import { parseFormality, parseSourceLang, parseTargetLang } from './languages.js';
import type { Store } from './store.js';
import { chargeCharacters, checkCharacters, type UsageAccount } from './usage.js';
import { objectBody, type Obj } from './validate.js';

export const MAX_TEXTS = TEXT_REQUEST_LIMITS.texts;
const MODEL_TYPES = ['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'];
const SPLIT_SENTENCES = ['0', '1', 'nonewlines'];
const TAG_HANDLING = ['xml', 'html'];
const TAG_HANDLING_VERSIONS = ['v1', 'v2'];

/**
 * Resolves a style_id given with a translation or an upload: the list must exist (404) and its
 * language must be the target's base language (400); style rules need the pro plan (403).
 */
export function resolveStyle(
  store: Store,
  plan: 'pro' | 'free',
  styleId: unknown,
  targetLang: string,
): EngineStyle | undefined {
  if (styleId === undefined || styleId === null || styleId === '') return undefined;
  if (typeof styleId !== 'string') throw badRequest("Parameter 'style_id' must be a string.", 'invalid_type');
  if (plan === 'free')
    throw new ApiError(
      403,
      'plan_restricted',
      'Style rules (style_id) need the pro (professional) API plan; this service runs the free plan.',
    );
  const style = store.getStyle(styleId);
  if (!style) throw notFound(`Style rule list ${styleId} not found.`, 'style_not_found');
  if (style.language !== baseLanguage(targetLang))
    throw badRequest(
      `Style rule list ${styleId} is for language '${style.language}', which does not match target_lang '${targetLang.toUpperCase()}'.`,
      'style_language_mismatch',
    );
  return { configured_rules: style.configured_rules, custom_instructions: style.custom_instructions };
}

/** An optional parameter that must be one of `allowed` (its name is in the error, as the real service's). */
function oneOf(o: Obj, field: string, allowed: readonly string[]): string | undefined {
  const v = o[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !allowed.includes(v))
    throw badRequest(
      `Value for '${field}' not supported: ${String(v)} (one of ${allowed.join(', ')}).`,
      'invalid_value',
    );
  return v;
}

/** A list of tag names: an array, or a comma-separated string (form bodies). */
function tagList(v: unknown, field: string): string[] {
  if (v === undefined || v === null || v === '') return [];
  const items = Array.isArray(v) ? v : [v];
  if (items.some((x) => typeof x !== 'string'))
    throw badRequest(`Parameter '${field}' must be a list of tag names.`, 'invalid_type');
  return (items as string[])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** Code points of a marked-up text outside its tags, an entity counting as the one character it stands for. */
export function markupTextLength(text: string): number {
  return [...text.replace(/<[^<>]*>/g, '').replace(/&(?:#x[0-9A-Fa-f]+|#\d+|[A-Za-z]+);/g, '_')].length;
}

function isTrue(v: unknown): boolean {
  return v === true || v === 'true' || v === '1';
}

export interface TranslateRoutesOptions {
  store: Store;
  engine: Engine;
  plan: 'pro' | 'free';
  accountOf: (req: FastifyRequest) => UsageAccount;
}

export function registerTranslate(app: FastifyInstance, r: TranslateRoutesOptions): void {
  const { store, engine, plan } = r;
  // The official mock serves the same endpoint at /v2/translate_secondary too (its client's tests
  // check that a request path can be overridden).
  const handler = async (req: FastifyRequest) => {
    const o = objectBody(req.body);
    let text = o.text;
    if (typeof text === 'string') text = [text]; // form-encoded bodies with a single text
    if (text === undefined || text === null)
      throw badRequest("Parameter 'text' is required.", 'missing_field');
    if (!Array.isArray(text) || text.some((t) => typeof t !== 'string'))
      throw badRequest("Parameter 'text' must be an array of strings.", 'invalid_type');
    if (text.length === 0) throw badRequest("Parameter 'text' must not be empty.", 'invalid_value');
    if (text.length > MAX_TEXTS)
      throw badRequest(`At most ${MAX_TEXTS} texts per request.`, 'too_many_texts');
    const texts = text as string[];
    const targetLang = parseTargetLang(o.target_lang);
    const sourceLang = parseSourceLang(o.source_lang);
    const formality = parseFormality(o.formality, targetLang);
    const modelType = oneOf(o, 'model_type', MODEL_TYPES);
    oneOf(o, 'split_sentences', SPLIT_SENTENCES);
    const tagHandling = oneOf(o, 'tag_handling', TAG_HANDLING) as 'xml' | 'html' | undefined;
    oneOf(o, 'tag_handling_version', TAG_HANDLING_VERSIONS);
    const ignoreTags = tagList(o.ignore_tags, 'ignore_tags');
    if (o.context !== undefined && o.context !== null && typeof o.context !== 'string')
      throw badRequest("Parameter 'context' must be a string.", 'invalid_type');
    // Context shapes a translation but is neither translated nor billed (as the real service).
    const contextCharacters = typeof o.context === 'string' ? [...o.context].length : 0;
    const hasStyle = o.style_id !== undefined && o.style_id !== null && o.style_id !== '';
    if (hasStyle && modelType === 'latency_optimized')
      throw badRequest(
        "style_id cannot be combined with model_type 'latency_optimized' (style rules use quality_optimized).",
        'style_needs_quality_model',
      );
    const style = resolveStyle(store, plan, o.style_id, targetLang);
    const glossary = resolveGlossary(store.glossaries, o.glossary_id, sourceLang, targetLang);
    const account = r.accountOf(req);
    // With tag handling the markup is not billed, only the text (as the real service bills).
    const billedOf = (t: string) => (tagHandling ? markupTextLength(t) : [...t].length);
    const characters = texts.reduce((n, t) => n + billedOf(t), 0);
    checkCharacters(account, characters);

    const base: TranslateOptions = {
      targetLang,
      ...(formality ? { formality } : {}),
      ...(style ? { style } : {}),
      ...(glossary ? { glossary } : {}),
      ...(tagHandling ? { tagHandling, ignoreTags } : {}),
    };
    // Each text has its own source language when none is given (as the real service).
    const sources = await Promise.all(
      texts.map(async (t) => sourceLang ?? (engine.detectLanguage ? await engine.detectLanguage(t) : 'en')),
    );
    const translations = texts.map((t, i) => {
      const result = engine.translateTexts([t], { ...base, sourceLang: sources[i]! });
      const item: {
        detected_source_language: string;
        text: string;
        billed_characters?: number;
        model_type_used?: string;
      } = {
        detected_source_language: result.detectedSourceLang.toUpperCase(),
        text: result.texts[0] ?? '',
      };
      if (isTrue(o.show_billed_characters)) item.billed_characters = billedOf(t);
      if (modelType)
        item.model_type_used = modelType === 'latency_optimized' ? 'latency_optimized' : 'quality_optimized';
      return item;
    });
    chargeCharacters(account, characters);
    const ctx = getContext(req);
    if (ctx)
      ctx.entry.text = {
        texts: texts.length,
        characters,
        context_characters: contextCharacters,
        target_lang: targetLang.toUpperCase(),
      };
    return { translations };
  };
  // The real service refuses a request body over 128 KiB (413).
  const opts = { bodyLimit: TEXT_REQUEST_LIMITS.bytes };
  app.post('/v2/translate', opts, handler);
  app.post('/v2/translate_secondary', opts, handler);
}
