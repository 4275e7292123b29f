// Glossaries of one language pair, /v2/glossaries, and /v2/glossary-language-pairs (the real
// service's API). A v2 glossary is a glossary with one dictionary: it is also seen by /v3.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';
import { glossaryTermsToTsv } from './glossary-entries.js';
import type { GlossaryRow, GlossaryStore } from './glossary-store.js';
import {
  findGlossary,
  GLOSSARY_BODY_LIMIT,
  GLOSSARY_LANGUAGES,
  glossaryName,
  parseDictionary,
} from './glossaries.js';
import { objectBody } from './validate.js';

type IdParams = { Params: { id: string } };

export function singlePairInfo(g: GlossaryRow): Record<string, unknown> {
  const d = g.dictionaries[0]!;
  return {
    glossary_id: g.glossary_id,
    name: g.name,
    ready: true,
    source_lang: d.source_lang,
    target_lang: d.target_lang,
    creation_time: g.creation_time,
    entry_count: d.entries.length,
  };
}

/** A glossary seen through /v2: it must hold exactly one dictionary. */
function singlePair(g: GlossaryRow): GlossaryRow {
  if (g.dictionaries.length !== 1)
    throw badRequest(
      `Glossary ${g.glossary_id} has ${g.dictionaries.length} dictionaries: use /v3/glossaries for it.`,
      'multilingual_glossary',
    );
  return g;
}

export function registerGlossariesV2(app: FastifyInstance, store: GlossaryStore): void {
  app.get('/v2/glossary-language-pairs', async () => ({
    supported_languages: GLOSSARY_LANGUAGES.flatMap((s) =>
      GLOSSARY_LANGUAGES.filter((t) => t !== s).map((t) => ({ source_lang: s, target_lang: t })),
    ),
  }));

  app.post('/v2/glossaries', { bodyLimit: GLOSSARY_BODY_LIMIT }, async (req, reply) => {
    const o = objectBody(req.body);
    const name = glossaryName(o.name);
    const g: GlossaryRow = {
      glossary_id: randomUUID(),
      name,
      creation_time: new Date().toISOString(),
      dictionaries: [parseDictionary(o)],
    };
    store.create(g);
    return reply.code(201).send(singlePairInfo(g));
  });

  app.get('/v2/glossaries', async () => ({
    glossaries: store
      .list()
      .filter((g) => g.dictionaries.length === 1)
      .map(singlePairInfo),
  }));

  app.get<IdParams>('/v2/glossaries/:id', async (req) =>
    singlePairInfo(singlePair(findGlossary(store, req.params.id))),
  );

  app.get<IdParams>('/v2/glossaries/:id/entries', async (req, reply) => {
    const g = singlePair(findGlossary(store, req.params.id));
    return reply
      .header('Content-Type', 'text/tab-separated-values; charset=utf-8')
      .send(glossaryTermsToTsv(g.dictionaries[0]!.entries));
  });

  app.delete<IdParams>('/v2/glossaries/:id', async (req, reply) => {
    const g = findGlossary(store, req.params.id);
    store.delete(g.glossary_id);
    return reply.code(204).send();
  });
}
