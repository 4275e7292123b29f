// The local service's state: style rule lists and document jobs in SQLite (better-sqlite3).
// In memory (":memory:") by default; a file under dataDir when the service persists.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type {
  ConfiguredRules,
  CustomInstruction,
  DocumentState,
  Formality,
  StyleLanguage,
} from '../api/types.js';
import type { EngineStyle } from './engine/types.js';
import type { BadOutputKind } from './bad-output-kinds.js';
import type { GlossaryTerms } from './glossary-entries.js';
import { GlossaryStore } from './glossary-store.js';

export interface StyleRow {
  style_id: string;
  name: string;
  language: StyleLanguage;
  version: number;
  creation_time: string;
  updated_time: string;
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstruction[];
}

export interface JobRow {
  document_id: string;
  document_key: string;
  status: DocumentState;
  filename: string;
  ext: string;
  out_ext: string;
  target_lang: string;
  source_lang?: string;
  formality?: Formality;
  style?: EngineStyle;
  /** Entries of the glossary dictionary given with the upload (taken at upload time). */
  glossary?: GlossaryTerms;
  /** Time this document spends translating, ms, when not the scheduler's (a mock session's). */
  translate_ms?: number;
  bytes: number;
  sha256: string;
  created_at: number;
  /** Epoch ms at which a queued job may start translating. */
  queued_until: number;
  started_at?: number;
  /** Epoch ms before which a translating job does not finish (translateSeconds). */
  translate_until?: number;
  billed_characters?: number;
  message?: string;
  /** Injected fault: the job ends in error with this message. */
  fail_message?: string;
  absurd_eta: boolean;
  /** Injected fault: the job ends done with this bad translation (./bad-outputs.ts). */
  bad_output?: BadOutputKind;
  downloaded: boolean;
}

interface StyleDbRow {
  style_id: string;
  name: string;
  language: string;
  version: number;
  creation_time: string;
  updated_time: string;
  configured_rules: string;
  custom_instructions: string;
}

type JobDbRow = Omit<
  JobRow,
  | 'style'
  | 'glossary'
  | 'translate_ms'
  | 'absurd_eta'
  | 'downloaded'
  | 'source_lang'
  | 'formality'
  | 'bad_output'
> & {
  source_lang: string | null;
  formality: string | null;
  style: string | null;
  glossary: string | null;
  translate_ms: number | null;
  started_at: number | null;
  translate_until: number | null;
  billed_characters: number | null;
  message: string | null;
  fail_message: string | null;
  bad_output: string | null;
  absurd_eta: number;
  downloaded: number;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS style_lists (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  style_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  version INTEGER NOT NULL,
  creation_time TEXT NOT NULL,
  updated_time TEXT NOT NULL,
  configured_rules TEXT NOT NULL,
  custom_instructions TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  document_id TEXT NOT NULL UNIQUE,
  document_key TEXT NOT NULL,
  status TEXT NOT NULL,
  filename TEXT NOT NULL,
  ext TEXT NOT NULL,
  out_ext TEXT NOT NULL,
  target_lang TEXT NOT NULL,
  source_lang TEXT,
  formality TEXT,
  style TEXT,
  glossary TEXT,
  translate_ms INTEGER,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  queued_until INTEGER NOT NULL,
  started_at INTEGER,
  translate_until INTEGER,
  billed_characters INTEGER,
  message TEXT,
  fail_message TEXT,
  bad_output TEXT,
  absurd_eta INTEGER NOT NULL DEFAULT 0,
  downloaded INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_status ON documents(status, downloaded);
`;

/** Columns added to `documents` after its first version, with their types. */
const ADDED_JOB_COLUMNS: Array<[string, string]> = [
  ['glossary', 'TEXT'],
  ['translate_ms', 'INTEGER'],
  ['bad_output', 'TEXT'],
];

const JOB_COLUMNS = [
  'document_id',
  'document_key',
  'status',
  'filename',
  'ext',
  'out_ext',
  'target_lang',
  'source_lang',
  'formality',
  'style',
  'glossary',
  'translate_ms',
  'bytes',
  'sha256',
  'created_at',
  'queued_until',
  'started_at',
  'translate_until',
  'billed_characters',
  'message',
  'fail_message',
  'bad_output',
  'absurd_eta',
  'downloaded',
] as const;

/** A job's columns stored as they are, NULL where the job has none (read back: left out). */
const OPTIONAL_JOB_COLUMNS = [
  'source_lang',
  'formality',
  'translate_ms',
  'started_at',
  'translate_until',
  'billed_characters',
  'message',
  'fail_message',
  'bad_output',
] as const;
type OptionalJobColumn = (typeof OPTIONAL_JOB_COLUMNS)[number];

function styleFromDb(r: StyleDbRow): StyleRow {
  return {
    style_id: r.style_id,
    name: r.name,
    language: r.language as StyleLanguage,
    version: r.version,
    creation_time: r.creation_time,
    updated_time: r.updated_time,
    configured_rules: JSON.parse(r.configured_rules) as ConfiguredRules,
    custom_instructions: JSON.parse(r.custom_instructions) as CustomInstruction[],
  };
}

function jobFromDb(r: JobDbRow): JobRow {
  const job: JobRow = {
    document_id: r.document_id,
    document_key: r.document_key,
    status: r.status,
    filename: r.filename,
    ext: r.ext,
    out_ext: r.out_ext,
    target_lang: r.target_lang,
    bytes: r.bytes,
    sha256: r.sha256,
    created_at: r.created_at,
    queued_until: r.queued_until,
    absurd_eta: r.absurd_eta === 1,
    downloaded: r.downloaded === 1,
  };
  const optional = job as unknown as Record<OptionalJobColumn, string | number>;
  for (const c of OPTIONAL_JOB_COLUMNS) if (r[c] !== null) optional[c] = r[c];
  if (r.style !== null) job.style = JSON.parse(r.style) as EngineStyle;
  if (r.glossary !== null) job.glossary = JSON.parse(r.glossary) as GlossaryTerms;
  return job;
}

function jobToDb(j: JobRow): Record<(typeof JOB_COLUMNS)[number], string | number | null> {
  return {
    document_id: j.document_id,
    document_key: j.document_key,
    status: j.status,
    filename: j.filename,
    ext: j.ext,
    out_ext: j.out_ext,
    target_lang: j.target_lang,
    ...(Object.fromEntries(OPTIONAL_JOB_COLUMNS.map((c) => [c, j[c] ?? null])) as Record<
      OptionalJobColumn,
      string | number | null
    >),
    style: j.style ? JSON.stringify(j.style) : null,
    glossary: j.glossary ? JSON.stringify(j.glossary) : null,
    bytes: j.bytes,
    sha256: j.sha256,
    created_at: j.created_at,
    queued_until: j.queued_until,
    absurd_eta: j.absurd_eta ? 1 : 0,
    downloaded: j.downloaded ? 1 : 0,
  };
}

/**
 * The database holds document keys: it, and the WAL and shared-memory files SQLite makes beside it
 * (they take the database file's mode), are readable by the owner only, also when an older version
 * or a wide umask left them open.
 */
function restrictToOwner(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

export class Store {
  private readonly db: Database.Database;
  private readonly stmts;
  readonly glossaries: GlossaryStore;

  /** `file` is a path, or ":memory:". */
  constructor(file: string) {
    if (file !== ':memory:') restrictToOwner(file);
    this.db = new Database(file);
    if (file !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
    this.db.exec(SCHEMA);
    // A database written by an older version gets the newer columns (CREATE TABLE left it as it was).
    const columns = new Set(
      (this.db.pragma('table_info(documents)') as Array<{ name: string }>).map((c) => c.name),
    );
    for (const [name, type] of ADDED_JOB_COLUMNS)
      if (!columns.has(name)) this.db.exec(`ALTER TABLE documents ADD COLUMN ${name} ${type}`);
    this.glossaries = new GlossaryStore(this.db);
    const cols = JOB_COLUMNS.join(', ');
    const params = JOB_COLUMNS.map((c) => '@' + c).join(', ');
    const sets = JOB_COLUMNS.filter((c) => c !== 'document_id')
      .map((c) => `${c} = @${c}`)
      .join(', ');
    this.stmts = {
      styleInsert: this.db.prepare(
        `INSERT INTO style_lists (style_id, name, language, version, creation_time, updated_time, configured_rules, custom_instructions)
         VALUES (@style_id, @name, @language, @version, @creation_time, @updated_time, @configured_rules, @custom_instructions)`,
      ),
      styleUpdate: this.db.prepare(
        `UPDATE style_lists SET name = @name, language = @language, version = @version, updated_time = @updated_time,
         configured_rules = @configured_rules, custom_instructions = @custom_instructions WHERE style_id = @style_id`,
      ),
      styleGet: this.db.prepare('SELECT * FROM style_lists WHERE style_id = ?'),
      stylePage: this.db.prepare('SELECT * FROM style_lists ORDER BY seq LIMIT ? OFFSET ?'),
      styleDelete: this.db.prepare('DELETE FROM style_lists WHERE style_id = ?'),
      jobInsert: this.db.prepare(`INSERT INTO documents (${cols}) VALUES (${params})`),
      jobUpdate: this.db.prepare(`UPDATE documents SET ${sets} WHERE document_id = @document_id`),
      jobGet: this.db.prepare('SELECT * FROM documents WHERE document_id = ?'),
      jobsByStatus: this.db.prepare(
        'SELECT * FROM documents WHERE status = ? AND downloaded = 0 ORDER BY seq',
      ),
      countWaiting: this.db.prepare(
        "SELECT COUNT(*) AS n FROM documents WHERE status = 'done' AND downloaded = 0",
      ),
      countByStatus: this.db.prepare(
        'SELECT status, downloaded, COUNT(*) AS n FROM documents GROUP BY status, downloaded',
      ),
      claimDownload: this.db.prepare(
        "UPDATE documents SET downloaded = 1 WHERE document_id = ? AND status = 'done' AND downloaded = 0",
      ),
    };
  }

  // ---- style rule lists ----

  insertStyle(s: StyleRow): void {
    this.stmts.styleInsert.run(this.styleParams(s));
  }

  updateStyle(s: StyleRow): void {
    this.stmts.styleUpdate.run(this.styleParams(s));
  }

  getStyle(id: string): StyleRow | undefined {
    const r = this.stmts.styleGet.get(id) as StyleDbRow | undefined;
    return r && styleFromDb(r);
  }

  listStyles(limit: number, offset: number): StyleRow[] {
    return (this.stmts.stylePage.all(limit, offset) as StyleDbRow[]).map(styleFromDb);
  }

  deleteStyle(id: string): boolean {
    return this.stmts.styleDelete.run(id).changes > 0;
  }

  private styleParams(s: StyleRow): Record<string, string | number> {
    return {
      style_id: s.style_id,
      name: s.name,
      language: s.language,
      version: s.version,
      creation_time: s.creation_time,
      updated_time: s.updated_time,
      configured_rules: JSON.stringify(s.configured_rules),
      custom_instructions: JSON.stringify(s.custom_instructions),
    };
  }

  // ---- document jobs ----

  insertJob(j: JobRow): void {
    this.stmts.jobInsert.run(jobToDb(j));
  }

  updateJob(j: JobRow): void {
    this.stmts.jobUpdate.run(jobToDb(j));
  }

  getJob(id: string): JobRow | undefined {
    const r = this.stmts.jobGet.get(id) as JobDbRow | undefined;
    return r && jobFromDb(r);
  }

  /** Jobs in a state, not yet downloaded, in upload order. */
  jobsIn(status: DocumentState): JobRow[] {
    return (this.stmts.jobsByStatus.all(status) as JobDbRow[]).map(jobFromDb);
  }

  /** Documents done and not yet downloaded. */
  countWaitingForDownload(): number {
    return (this.stmts.countWaiting.get() as { n: number }).n;
  }

  /** Counts per state; downloaded documents are counted as "downloaded". */
  counts(): Record<string, number> {
    const out: Record<string, number> = { queued: 0, translating: 0, done: 0, error: 0, downloaded: 0 };
    for (const r of this.stmts.countByStatus.all() as Array<{
      status: string;
      downloaded: number;
      n: number;
    }>) {
      const key = r.downloaded ? 'downloaded' : r.status;
      out[key] = (out[key] ?? 0) + r.n;
    }
    return out;
  }

  /** Marks a done job downloaded; false when it was not done or already downloaded (once only). */
  claimDownload(id: string): boolean {
    return this.stmts.claimDownload.run(id).changes > 0;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
