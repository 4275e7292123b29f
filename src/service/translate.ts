// POST /v2/translate (style-rules spec endpoint 10, response shape of the real service).
import type { FastifyInstance } from 'fastify';
import type { TranslateTextResponse } from '../api/types.js';
import type { Engine, EngineStyle } from './engine/types.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { baseLanguage, parseFormality, parseSourceLang, parseTargetLang } from './languages.js';
import type { Store } from './store.js';
import { objectBody } from './validate.js';

export const MAX_TEXTS = 50;
const MODEL_TYPES = ['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'];

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

export function registerTranslate(
  app: FastifyInstance,
  store: Store,
  engine: Engine,
  plan: 'pro' | 'free',
): void {
  app.post('/v2/translate', async (req) => {
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
    const targetLang = parseTargetLang(o.target_lang);
    const sourceLang = parseSourceLang(o.source_lang);
    const formality = parseFormality(o.formality, targetLang);
    if (
      o.model_type !== undefined &&
      (typeof o.model_type !== 'string' || !MODEL_TYPES.includes(o.model_type))
    )
      throw badRequest(
        `Value for 'model_type' not supported (one of ${MODEL_TYPES.join(', ')}).`,
        'invalid_value',
      );
    const hasStyle = o.style_id !== undefined && o.style_id !== null && o.style_id !== '';
    if (hasStyle && o.model_type === 'latency_optimized')
      throw badRequest(
        "style_id cannot be combined with model_type 'latency_optimized' (style rules use quality_optimized).",
        'style_needs_quality_model',
      );
    const style = resolveStyle(store, plan, o.style_id, targetLang);
    const result = engine.translateTexts(text as string[], {
      targetLang,
      ...(sourceLang ? { sourceLang } : {}),
      ...(formality ? { formality } : {}),
      ...(style ? { style } : {}),
    });
    const detected = result.detectedSourceLang.toUpperCase();
    const response: TranslateTextResponse & { billed_characters?: number } = {
      translations: result.texts.map((t) => ({ detected_source_language: detected, text: t })),
    };
    if (
      o.show_billed_characters === true ||
      o.show_billed_characters === 'true' ||
      o.show_billed_characters === '1'
    )
      response.billed_characters = result.billedCharacters;
    return response;
  });
}
