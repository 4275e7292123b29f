// The service's glossary endpoints, built on the client's request machinery (rate limit, retries,
// typed errors): v3 multilingual glossaries (one glossary, one dictionary per language pair, editable)
// and the v2 monolingual ones of older integrations (one pair, not editable). Creating is never
// blindly retried: a repeat after a lost answer could make the glossary twice.

import type { ServiceClient } from './client.js';
import type { CallOptions } from './transport.js';

/** Entries as the service exchanges them: TSV, `source<TAB>target` per line. */
export type EntriesTsv = string;

export interface GlossaryDictionaryInfo {
  source_lang: string;
  target_lang: string;
  entry_count: number;
}

/** A v3 glossary as listed or got (without entries). */
export interface MultilingualGlossary {
  glossary_id: string;
  name: string;
  dictionaries: GlossaryDictionaryInfo[];
  creation_time: string;
}

export interface GlossaryDictionaryEntries {
  source_lang: string;
  target_lang: string;
  entries: EntriesTsv;
  entries_format: 'tsv' | 'csv';
}

/** A v2 (monolingual) glossary. */
export interface MonolingualGlossary {
  glossary_id: string;
  name: string;
  ready: boolean;
  source_lang: string;
  target_lang: string;
  creation_time: string;
  entry_count: number;
}

export interface GlossaryLanguagePair {
  source_lang: string;
  target_lang: string;
}

function seg(id: string): string {
  return encodeURIComponent(id);
}

/** The glossary endpoints of one client. */
export class GlossaryApi {
  constructor(private readonly client: ServiceClient) {}

  /** Language pairs glossaries are offered for (the same list serves v2 and v3). */
  async languagePairs(opts: CallOptions = {}): Promise<GlossaryLanguagePair[]> {
    const res = await this.client.request<{ supported_languages: GlossaryLanguagePair[] }>(
      { method: 'GET', path: '/v2/glossary-language-pairs' },
      opts,
    );
    return res.supported_languages ?? [];
  }

  // ---- v3: multilingual, editable ----

  /** Create a glossary; not retried once the request may have arrived (UploadMaybeAcceptedError). */
  create(
    name: string,
    dictionaries: Array<{ source_lang: string; target_lang: string; entries: EntriesTsv }>,
    opts: CallOptions = {},
  ): Promise<MultilingualGlossary> {
    return this.client.request(
      {
        method: 'POST',
        path: '/v3/glossaries',
        kind: 'create',
        json: { name, dictionaries: dictionaries.map((d) => ({ ...d, entries_format: 'tsv' })) },
      },
      opts,
    );
  }

  async list(opts: CallOptions = {}): Promise<MultilingualGlossary[]> {
    const res = await this.client.request<{ glossaries: MultilingualGlossary[] }>(
      { method: 'GET', path: '/v3/glossaries' },
      opts,
    );
    return res.glossaries ?? [];
  }

  get(id: string, opts: CallOptions = {}): Promise<MultilingualGlossary> {
    return this.client.request({ method: 'GET', path: `/v3/glossaries/${seg(id)}` }, opts);
  }

  /** The entries of one dictionary (TSV). */
  async entries(
    id: string,
    sourceLang: string,
    targetLang: string,
    opts: CallOptions = {},
  ): Promise<EntriesTsv> {
    const res = await this.client.request<{ dictionaries: GlossaryDictionaryEntries[] }>(
      {
        method: 'GET',
        path: `/v3/glossaries/${seg(id)}/entries`,
        searchParams: { source_lang: sourceLang, target_lang: targetLang },
      },
      opts,
    );
    const d = (res.dictionaries ?? []).find(
      (x) => x.source_lang.toLowerCase() === sourceLang && x.target_lang.toLowerCase() === targetLang,
    );
    return d?.entries ?? '';
  }

  /** Rename a glossary (PATCH with a name only: dictionaries are left as they are). */
  rename(id: string, name: string, opts: CallOptions = {}): Promise<MultilingualGlossary> {
    return this.client.request({ method: 'PATCH', path: `/v3/glossaries/${seg(id)}`, json: { name } }, opts);
  }

  /** Replace a dictionary's entries, or add the dictionary (PUT: repeating it gives the same result). */
  putDictionary(
    id: string,
    dictionary: { source_lang: string; target_lang: string; entries: EntriesTsv },
    opts: CallOptions = {},
  ): Promise<GlossaryDictionaryInfo> {
    return this.client.request(
      {
        method: 'PUT',
        path: `/v3/glossaries/${seg(id)}/dictionaries`,
        json: { ...dictionary, entries_format: 'tsv' },
      },
      opts,
    );
  }

  async deleteDictionary(
    id: string,
    sourceLang: string,
    targetLang: string,
    opts: CallOptions = {},
  ): Promise<void> {
    await this.client.request(
      {
        method: 'DELETE',
        path: `/v3/glossaries/${seg(id)}/dictionaries`,
        searchParams: { source_lang: sourceLang, target_lang: targetLang },
      },
      opts,
    );
  }

  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    await this.client.request({ method: 'DELETE', path: `/v3/glossaries/${seg(id)}` }, opts);
  }

  // ---- v2: monolingual (one pair), not editable ----

  createV2(
    req: { name: string; source_lang: string; target_lang: string; entries: EntriesTsv },
    opts: CallOptions = {},
  ): Promise<MonolingualGlossary> {
    return this.client.request(
      { method: 'POST', path: '/v2/glossaries', kind: 'create', json: { ...req, entries_format: 'tsv' } },
      opts,
    );
  }

  async listV2(opts: CallOptions = {}): Promise<MonolingualGlossary[]> {
    const res = await this.client.request<{ glossaries: MonolingualGlossary[] }>(
      { method: 'GET', path: '/v2/glossaries' },
      opts,
    );
    return res.glossaries ?? [];
  }

  getV2(id: string, opts: CallOptions = {}): Promise<MonolingualGlossary> {
    return this.client.request({ method: 'GET', path: `/v2/glossaries/${seg(id)}` }, opts);
  }

  /** The entries of a v2 glossary (the service answers TSV text). */
  entriesV2(id: string, opts: CallOptions = {}): Promise<EntriesTsv> {
    return this.client.request(
      { method: 'GET', path: `/v2/glossaries/${seg(id)}/entries`, accept: 'text/tab-separated-values' },
      opts,
    );
  }

  async deleteV2(id: string, opts: CallOptions = {}): Promise<void> {
    await this.client.request({ method: 'DELETE', path: `/v2/glossaries/${seg(id)}` }, opts);
  }
}
