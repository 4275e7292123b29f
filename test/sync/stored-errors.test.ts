import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import * as PG from '../../src/state/postgres/migrations.js';
import * as SQLITE from '../../src/state/sqlite/migrations.js';
import { createFixture, onPostgres, type Fixture } from './fixture.js';

// Errors a locsync stored before document keys echoed by the service were redacted still hold those
// keys in the state's error column (shown by status, the status page, the report). Opening such a
// state scrubs them once, on both backends: a key still recorded on its job, and one whose job no
// longer records it (a failed job's key is cleared) but that the message labels as a key.

const OLD_KEY = 'C0FFEE0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789';
const RECORDED_KEY = 'FEEDFACE0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF01234567';
const KEPT = 'quota exceeded (456789 characters): try again tomorrow';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

interface OldJob {
  status: 'failed' | 'uploaded';
  key: string | null;
  error: string;
}

const OLD_JOBS: OldJob[] = [
  // The service's words as an older locsync stored them: the key cleared from the failed job.
  { status: 'failed', key: null, error: `document failed (document_key ${OLD_KEY})` },
  { status: 'failed', key: null, error: `{"message":"bad document","document_key":"${OLD_KEY}"}` },
  // A job still holding its document (retried later): its key echoed without a label.
  { status: 'uploaded', key: RECORDED_KEY, error: `translation failed for ${RECORDED_KEY}; retrying` },
  { status: 'failed', key: null, error: KEPT },
];

describe('errors stored before keys were redacted', () => {
  it('a state made before the scrub has the document keys in its error column redacted when opened', async () => {
    fx = await createFixture();
    const url = (await fx.load()).manifest.state;
    if (onPostgres) await pgStateBeforeScrub(url as string, OLD_JOBS);
    else sqliteStateBeforeScrub((await fx.load()).statePath, OLD_JOBS);

    const { state, close } = await fx.open();
    try {
      const errors: string[] = [];
      for (let id = 1; id <= OLD_JOBS.length; id++) errors.push((await state.jobs.get(id))?.error ?? '');
      const all = errors.join('\n');
      expect(all).not.toContain(OLD_KEY);
      expect(all).not.toContain(RECORDED_KEY);
      expect(errors).toEqual([
        'document failed (document_key [REDACTED])',
        '{"message":"bad document","document_key":"[REDACTED]"}',
        'translation failed for [REDACTED]; retrying',
        KEPT,
      ]);
    } finally {
      await close();
    }
  });
});

const JOB_COLUMNS =
  'mapping, rel_path, sha256, target_lang, fingerprint, base_fingerprint, output_path, status, document_id, document_key, error, error_kind, created_at, updated_at';
const jobValues = (j: OldJob, i: number) => [
  'docs',
  `doc${i}.txt`,
  'a'.repeat(64),
  'de',
  'fp',
  'fp',
  `out/de/doc${i}.txt`,
  j.status,
  j.status === 'uploaded' ? `DOC${i}` : null,
  j.key,
  j.error,
  'document',
  '2026-11-01T00:00:00Z',
  '2026-11-01T00:00:00Z',
];

/** A state.db as the locsync before the scrub left it: its migrations, these jobs. */
function sqliteStateBeforeScrub(file: string, jobs: OldJob[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    for (let v = 0; v < SQLITE.SCRUB_ERRORS_MIGRATION; v++) db.exec(SQLITE.MIGRATIONS[v] as string);
    db.pragma(`user_version = ${SQLITE.SCRUB_ERRORS_MIGRATION}`);
    const insert = db.prepare(
      `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${JOB_COLUMNS.replace(/\w+/g, '?')})`,
    );
    for (const [i, j] of jobs.entries()) insert.run(...jobValues(j, i));
  } finally {
    db.close();
  }
}

/** A PostgreSQL state as the locsync before the scrub left it: its migrations, these jobs. */
async function pgStateBeforeScrub(url: string, jobs: OldJob[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      'CREATE TABLE locsync_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (let v = 0; v < PG.SCRUB_ERRORS_MIGRATION; v++) {
      await client.query(PG.MIGRATIONS[v] as string);
      await client.query('INSERT INTO locsync_schema (version) VALUES ($1)', [v + 1]);
    }
    const marks = JOB_COLUMNS.split(', ').map((_, i) => `$${i + 1}`);
    for (const [i, j] of jobs.entries())
      await client.query(`INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${marks.join(', ')})`, jobValues(j, i));
  } finally {
    await client.end();
  }
}
