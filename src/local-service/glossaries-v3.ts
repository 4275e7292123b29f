// Multilingual glossaries, /v3/glossaries (the real service's API): a glossary holds one dictionary
// per language pair. Bodies are JSON or form fields (`dictionaries[0].entries` ...).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { badRequest, notFound } from './errors.js';
import { glossaryTermsToTsv, mergeGlossaryTerms } from './glossary-entries.js';
import type { GlossaryDictionary, GlossaryRow, GlossaryStore } from './glossary-store.js';
import {
  bodyDictionaries,
  findGlossary,
  glossaryLanguage,
  glossaryName,
  parseDictionary,
  GLOSSARY_BODY_LIMIT,
} from './glossaries.js';
import { isObject, objectBody } from './validate.js';

type IdParams = { Params: { id: string } };

function dictionaryInfo(d: GlossaryDictionary): {
  source_lang: string;
  target_lang: string;
  entry_count: number;
} {
  return { source_lang: d.source_lang, target_lang: d.target_lang, entry_count: d.entries.length };
}

export function multilingualInfo(g: GlossaryRow): Record<string, unknown> {
  return {
    glossary_id: g.glossary_id,
    name: g.name,
    dictionaries: g.dictionaries.map(dictionaryInfo),
    creation_time: g.creation_time,
  };
}

/** source_lang and target_lang of a query string, both required. */
function queryPair(query: unknown): { source: string; target: string } {
  const q = isObject(query) ? query : {};
  return {
    source: glossaryLanguage(q.source_lang, 'source_lang'),
    target: glossaryLanguage(q.target_lang, 'target_lang'),
  };
}

export function registerGlossariesV3(app: FastifyInstance, store: GlossaryStore): void {
  app.post('/v3/glossaries', { bodyLimit: GLOSSARY_BODY_LIMIT }, async (req, reply) => {
    const o = objectBody(req.body);
    const name = glossaryName(o.name);
    const dictionaries = bodyDictionaries(o) ?? [];
    const g: GlossaryRow = {
      glossary_id: randomUUID(),
      name,
      creation_time: new Date().toISOString(),
      dictionaries,
    };
    store.create(g);
    return reply.code(201).send(multilingualInfo(g));
  });

  app.get('/v3/glossaries', async () => ({ glossaries: store.list().map(multilingualInfo) }));

  app.get<IdParams>('/v3/glossaries/:id', async (req) =>
    multilingualInfo(findGlossary(store, req.params.id)),
  );

  // Rename and/or merge dictionaries: entries of a pair that exists are merged (a source term
  // given again takes the new target); a new pair is added.
  app.patch<IdParams>('/v3/glossaries/:id', { bodyLimit: GLOSSARY_BODY_LIMIT }, async (req) => {
    const g = findGlossary(store, req.params.id);
    const o = objectBody(req.body);
    const name = o.name === undefined ? undefined : glossaryName(o.name);
    const dicts = bodyDictionaries(o);
    if (name === undefined && dicts === undefined)
      throw badRequest("Give 'name' and/or 'dictionaries' to update.", 'missing_field');
    const merged = (dicts ?? []).map((d) => {
      const old = g.dictionaries.find(
        (x) => x.source_lang === d.source_lang && x.target_lang === d.target_lang,
      );
      return old ? { ...d, entries: mergeGlossaryTerms(old.entries, d.entries) } : d;
    });
    store.update(g.glossary_id, name, merged);
    return multilingualInfo(findGlossary(store, g.glossary_id));
  });

  // Replace (or add) the dictionary of one pair.
  app.put<IdParams>('/v3/glossaries/:id/dictionaries', { bodyLimit: GLOSSARY_BODY_LIMIT }, async (req) => {
    const g = findGlossary(store, req.params.id);
    const d = parseDictionary(objectBody(req.body));
    store.putDictionary(g.glossary_id, d);
    return dictionaryInfo(d);
  });

  app.delete<IdParams>('/v3/glossaries/:id/dictionaries', async (req, reply) => {
    const g = findGlossary(store, req.params.id);
    const { source, target } = queryPair(req.query);
    if (!store.deleteDictionary(g.glossary_id, source, target))
      throw notFound(
        `Glossary ${g.glossary_id} has no dictionary ${source} -> ${target}.`,
        'dictionary_not_found',
      );
    return reply.code(204).send();
  });

  app.get<IdParams>('/v3/glossaries/:id/entries', async (req) => {
    const g = findGlossary(store, req.params.id);
    const { source, target } = queryPair(req.query);
    const d = store.dictionary(g.glossary_id, source, target);
    if (!d)
      throw notFound(
        `Glossary ${g.glossary_id} has no dictionary ${source} -> ${target}.`,
        'dictionary_not_found',
      );
    return {
      dictionaries: [
        {
          source_lang: d.source_lang,
          target_lang: d.target_lang,
          entries: glossaryTermsToTsv(d.entries),
          entries_format: 'tsv',
        },
      ],
    };
  });

  app.delete<IdParams>('/v3/glossaries/:id', async (req, reply) => {
    const g = findGlossary(store, req.params.id);
    store.delete(g.glossary_id);
    return reply.code(204).send();
  });
}
