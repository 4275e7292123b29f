// Style rules API (style-rules spec, endpoints 1-9) and the real service's
// PUT /v3/style_rules/{id}/configured_rules (replace all rules).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  RULE_CATEGORIES,
  STYLE_LANGUAGES,
  STYLE_LIMITS,
  type ConfiguredRules,
  type CustomInstruction,
  type StyleLanguage,
  type StyleRuleList,
  type StyleRuleListSummary,
} from '../api/types.js';
import { ApiError, badRequest, notFound } from './errors.js';
import type { StyleRow, Store } from './store.js';
import { isObject, objectBody, type Obj } from './validate.js';

function str(o: Obj, field: string, max: number, required: boolean): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) {
    if (required) throw badRequest(`Field '${field}' is required.`, 'missing_field');
    return undefined;
  }
  if (typeof v !== 'string') throw badRequest(`Field '${field}' must be a string.`, 'invalid_type');
  if (required && v.length === 0) throw badRequest(`Field '${field}' must not be empty.`, 'invalid_value');
  if ([...v].length > max) throw badRequest(`Field '${field}' is longer than ${max} characters.`, 'too_long');
  return v;
}

function parseLanguage(o: Obj): StyleLanguage {
  const v = str(o, 'language', 100, true)!.toLowerCase();
  if (!(STYLE_LANGUAGES as readonly string[]).includes(v))
    throw badRequest(`Field 'language' must be one of ${STYLE_LANGUAGES.join(', ')}.`, 'invalid_value');
  return v as StyleLanguage;
}

export function parseConfiguredRules(v: unknown, field = 'configured_rules'): ConfiguredRules {
  if (!isObject(v))
    throw badRequest(`Field '${field}' must be an object of category to rule to option.`, 'invalid_type');
  const out: ConfiguredRules = {};
  for (const [category, rules] of Object.entries(v)) {
    if (!(RULE_CATEGORIES as readonly string[]).includes(category))
      throw badRequest(
        `Unknown rule category '${category}' (known: ${RULE_CATEGORIES.join(', ')}).`,
        'unknown_category',
      );
    if (!isObject(rules))
      throw badRequest(`Category '${category}' must be an object of rule name to option.`, 'invalid_type');
    const cat: Record<string, string> = {};
    for (const [rule, option] of Object.entries(rules)) {
      if (typeof option !== 'string' || option.length === 0)
        throw badRequest(`Rule '${category}.${rule}' must have a non-empty string option.`, 'invalid_type');
      cat[rule] = option;
    }
    out[category as keyof ConfiguredRules] = cat;
  }
  return out;
}

function parseInstruction(v: unknown, where: string): Omit<CustomInstruction, 'id'> {
  if (!isObject(v)) throw badRequest(`${where} must be an object with label and prompt.`, 'invalid_type');
  const label = str(v, 'label', STYLE_LIMITS.labelMax, true)!;
  const prompt = str(v, 'prompt', STYLE_LIMITS.promptMax, true)!;
  const source_language = str(v, 'source_language', 35, false);
  return source_language === undefined ? { label, prompt } : { label, prompt, source_language };
}

function newInstruction(i: Omit<CustomInstruction, 'id'>): CustomInstruction {
  return { id: randomUUID(), ...i };
}

function tooMany(n: number): ApiError {
  return badRequest(
    `A style rule list holds at most ${STYLE_LIMITS.instructionsMax} custom instructions (${n} given); split them across several lists.`,
    'too_many_instructions',
  );
}

/**
 * A style rule list the service holds from its start (`locsync serve --style-rules FILE`): an object
 * as a create request takes, with its own fixed `style_id`. Throws the API's 400 error for a bad one.
 */
export function presetStyleList(v: unknown, now = new Date().toISOString()): StyleRow {
  const b = objectBody(v);
  const style_id = str(b, 'style_id', 100, true)!;
  if (!/^[A-Za-z0-9-]+$/.test(style_id))
    throw badRequest("Field 'style_id' may hold only letters, digits and '-'.", 'invalid_value');
  const instructions = b.custom_instructions ?? [];
  if (!Array.isArray(instructions))
    throw badRequest("Field 'custom_instructions' must be an array.", 'invalid_type');
  if (instructions.length > STYLE_LIMITS.instructionsMax) throw tooMany(instructions.length);
  return {
    style_id,
    name: str(b, 'name', STYLE_LIMITS.nameMax, true)!,
    language: parseLanguage(b),
    version: 1,
    creation_time: now,
    updated_time: now,
    configured_rules: b.configured_rules === undefined ? {} : parseConfiguredRules(b.configured_rules),
    custom_instructions: instructions.map((i, n) =>
      newInstruction(parseInstruction(i, `custom_instructions[${n}]`)),
    ),
  };
}

function summary(s: StyleRow): StyleRuleListSummary {
  return {
    style_id: s.style_id,
    name: s.name,
    creation_time: s.creation_time,
    updated_time: s.updated_time,
    language: s.language,
    version: s.version,
  };
}

function full(s: StyleRow): StyleRuleList {
  return { ...summary(s), configured_rules: s.configured_rules, custom_instructions: s.custom_instructions };
}

function parseBool(v: unknown, field: string): boolean {
  if (v === undefined) return false;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`Query parameter '${field}' must be true or false.`, 'invalid_value');
}

function parseInt(v: unknown, field: string, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw badRequest(`Query parameter '${field}' must be an integer from ${min} to ${max}.`, 'invalid_value');
  return n;
}

/** Bumps version and updated_time: exactly once per modification. */
function modified(s: StyleRow): StyleRow {
  return { ...s, version: s.version + 1, updated_time: new Date().toISOString() };
}

export function registerStyleRules(app: FastifyInstance, store: Store, plan: 'pro' | 'free'): void {
  app.addHook('onRequest', async (req) => {
    if (plan === 'free' && req.url.startsWith('/v3/style_rules'))
      throw new ApiError(
        403,
        'plan_restricted',
        'Style rules need the pro (professional) API plan; this service runs the free plan.',
      );
  });

  const getOr404 = (id: string): StyleRow => {
    const s = store.getStyle(id);
    if (!s) throw notFound(`Style rule list ${id} not found.`, 'style_not_found');
    return s;
  };

  // 1. create
  app.post('/v3/style_rules', async (req, reply) => {
    const b = objectBody(req.body);
    const name = str(b, 'name', STYLE_LIMITS.nameMax, true)!;
    const language = parseLanguage(b);
    const configured_rules = b.configured_rules === undefined ? {} : parseConfiguredRules(b.configured_rules);
    let custom_instructions: CustomInstruction[] = [];
    if (b.custom_instructions !== undefined) {
      if (!Array.isArray(b.custom_instructions))
        throw badRequest("Field 'custom_instructions' must be an array.", 'invalid_type');
      if (b.custom_instructions.length > STYLE_LIMITS.instructionsMax)
        throw tooMany(b.custom_instructions.length);
      custom_instructions = b.custom_instructions.map((i, n) =>
        newInstruction(parseInstruction(i, `custom_instructions[${n}]`)),
      );
    }
    const now = new Date().toISOString();
    const s: StyleRow = {
      style_id: randomUUID(),
      name,
      language,
      version: 1,
      creation_time: now,
      updated_time: now,
      configured_rules,
      custom_instructions,
    };
    store.insertStyle(s);
    return reply.code(201).send(full(s));
  });

  // 2. list
  app.get('/v3/style_rules', async (req) => {
    const q = req.query as Obj;
    const detailed = parseBool(q.detailed, 'detailed');
    const pageSize = parseInt(
      q.page_size,
      'page_size',
      STYLE_LIMITS.pageSizeMin,
      STYLE_LIMITS.pageSizeMax,
      STYLE_LIMITS.pageSizeDefault,
    );
    const page = parseInt(q.page, 'page', 0, 1e9, 0);
    const rows = store.listStyles(pageSize, page * pageSize);
    return { style_rules: rows.map((s) => (detailed ? full(s) : summary(s))) };
  });

  // 3. get
  app.get<{ Params: { id: string } }>('/v3/style_rules/:id', async (req) => full(getOr404(req.params.id)));

  // 4. patch: merge only the given rules
  app.patch<{ Params: { id: string } }>('/v3/style_rules/:id', async (req) => {
    const s = getOr404(req.params.id);
    const b = objectBody(req.body);
    const name = str(b, 'name', STYLE_LIMITS.nameMax, false);
    if (name === '') throw badRequest("Field 'name' must not be empty.", 'invalid_value');
    const rules =
      b.configured_rules === undefined || b.configured_rules === null
        ? undefined
        : parseConfiguredRules(b.configured_rules);
    if (name === undefined && rules === undefined)
      throw badRequest("Nothing to update: give 'name' and/or 'configured_rules'.", 'missing_field');
    const next = modified(s);
    if (name !== undefined) next.name = name;
    if (rules) {
      const merged: ConfiguredRules = { ...s.configured_rules };
      for (const [cat, r] of Object.entries(rules)) {
        const k = cat as keyof ConfiguredRules;
        merged[k] = { ...(merged[k] ?? {}), ...r };
      }
      next.configured_rules = merged;
    }
    store.updateStyle(next);
    return full(next);
  });

  // extension: replace all configured rules
  app.put<{ Params: { id: string } }>('/v3/style_rules/:id/configured_rules', async (req) => {
    const s = getOr404(req.params.id);
    let b = objectBody(req.body);
    const keys = Object.keys(b);
    if (keys.length === 1 && keys[0] === 'configured_rules') b = objectBody(b.configured_rules);
    const next = modified(s);
    next.configured_rules = parseConfiguredRules(b);
    store.updateStyle(next);
    return full(next);
  });

  // 5. delete
  app.delete<{ Params: { id: string } }>('/v3/style_rules/:id', async (req, reply) => {
    if (!store.deleteStyle(req.params.id))
      throw notFound(`Style rule list ${req.params.id} not found.`, 'style_not_found');
    return reply.code(204).send();
  });

  // 6. add a custom instruction
  app.post<{ Params: { id: string } }>('/v3/style_rules/:id/custom_instructions', async (req, reply) => {
    const s = getOr404(req.params.id);
    const instruction = newInstruction(parseInstruction(objectBody(req.body), 'The custom instruction'));
    if (s.custom_instructions.length + 1 > STYLE_LIMITS.instructionsMax)
      throw tooMany(s.custom_instructions.length + 1);
    const next = modified(s);
    next.custom_instructions = [...s.custom_instructions, instruction];
    store.updateStyle(next);
    return reply.code(201).send(full(next));
  });

  const instructionOr404 = (s: StyleRow, iid: string): number => {
    const i = s.custom_instructions.findIndex((c) => c.id === iid);
    if (i < 0)
      throw notFound(
        `Custom instruction ${iid} not found in style rule list ${s.style_id}.`,
        'instruction_not_found',
      );
    return i;
  };

  // 7. get a custom instruction
  app.get<{ Params: { id: string; iid: string } }>(
    '/v3/style_rules/:id/custom_instructions/:iid',
    async (req) => {
      const s = getOr404(req.params.id);
      return s.custom_instructions[instructionOr404(s, req.params.iid)];
    },
  );

  // 8. replace a custom instruction (all fields; a missing source_language removes it)
  app.put<{ Params: { id: string; iid: string } }>(
    '/v3/style_rules/:id/custom_instructions/:iid',
    async (req) => {
      const s = getOr404(req.params.id);
      const i = instructionOr404(s, req.params.iid);
      const replaced: CustomInstruction = {
        id: req.params.iid,
        ...parseInstruction(objectBody(req.body), 'The custom instruction'),
      };
      const next = modified(s);
      next.custom_instructions = s.custom_instructions.map((c, n) => (n === i ? replaced : c));
      store.updateStyle(next);
      return replaced;
    },
  );

  // 9. delete a custom instruction
  app.delete<{ Params: { id: string; iid: string } }>(
    '/v3/style_rules/:id/custom_instructions/:iid',
    async (req, reply) => {
      const s = getOr404(req.params.id);
      const i = instructionOr404(s, req.params.iid);
      const next = modified(s);
      next.custom_instructions = s.custom_instructions.filter((_, n) => n !== i);
      store.updateStyle(next);
      return reply.code(204).send();
    },
  );
}
