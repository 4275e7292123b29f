import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayUrl } from '../../src/state/postgres/url.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// What a user is told about a PostgreSQL `state:` URL and the database behind it: secrets in the
// URL refused with the fix and never shown; another application's tables, a missing database, no
// user name and a refused connection each named with what to do.

const server = await pgForTests();

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pgurl-'));
  fs.mkdirSync(path.join(dir, 'src'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function manifest(state: string): string {
  const file = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    file,
    `state: ${state}\nmappings:\n  - name: docs\n    source: src\n    output: out/{path}\n    targets: [{ lang: de }]\n`,
  );
  return file;
}

describe('secrets in the state URL', () => {
  it.each([
    ['password', 'postgres://locsync@db.example:5432/pipeline?password=hunter2secret'],
    [
      'passfile',
      'postgres://locsync@db.example:5432/pipeline?sslmode=require&passfile=/home/x/hunter2secret',
    ],
    ['sslpassword', 'postgres://locsync@db.example:5432/pipeline?sslpassword=hunter2secret'],
  ])('`%s=` in the query is refused by validate with the fix, and never printed', async (param, url) => {
    const file = manifest(url);
    for (const cmd of [['validate'], ['status', '--json']]) {
      const r = await runCli([...cmd, '-c', file]);
      expect(r.code, cmd.join(' ')).toBe(2);
      const out = r.stderr + r.stdout;
      expect(out).toContain(`${file}:1:`);
      expect(out).toContain(`\`${param}=\``);
      expect(out).toMatch(/PGPASSWORD.*\.pgpass/);
      expect(out).not.toContain('hunter2secret');
    }
  });

  it('one function shows every URL: the password and secret query values are hidden', () => {
    expect(displayUrl('postgres://u:pw-secret-1@h:5432/db?password=pw-secret-2&sslmode=require')).toBe(
      'postgres://u:***@h:5432/db?password=***&sslmode=require',
    );
    expect(displayUrl('postgresql://h/db?passfile=/x/y&sslpassword=s3cret')).toBe(
      'postgresql://h/db?passfile=***&sslpassword=***',
    );
  });
});

describe('a server that cannot be used as it is named', () => {
  it('connection refused: exit 1 naming the host and the port', async () => {
    const file = manifest('postgres://locsync@127.0.0.1:1/pipeline');
    const r = await runCli(['status', '-c', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'PostgreSQL state at postgres://locsync@127.0.0.1:1/pipeline: connection refused by 127.0.0.1 port 1',
    );
  });
});

describe.skipIf(!server)('a database that is not ready for locsync', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(() => db.drop());

  it('a missing database: the URL (without secrets) and the createdb command', async () => {
    const url = db.url.replace(/\/[^/?]+(\?|$)/, '/no_such_db_h28$1');
    const file = manifest(url);
    const { hostname, port, username } = new URL(url);
    for (const cmd of [['state', 'migrate'], ['status']]) {
      const r = await runCli([...cmd, '-c', file]);
      expect(r.code, cmd.join(' ')).toBe(1);
      expect(r.stderr).toContain(
        `PostgreSQL state at ${displayUrl(url)}: database "no_such_db_h28" does not exist`,
      );
      expect(r.stderr).toContain(
        `createdb -h ${hostname} -p ${port || 5432}${username ? ` -U ${username}` : ''} no_such_db_h28`,
      );
    }
  });

  it("another application's tables: named, with a schema or a database of its own suggested; its schema works", async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query(
      `CREATE TABLE files (id int); CREATE TABLE jobs (name text); INSERT INTO jobs VALUES ('theirs')`,
    );
    const file = manifest(db.url);
    for (const cmd of [['state', 'migrate'], ['status'], ['report']]) {
      const r = await runCli([...cmd, '-c', file]);
      expect(r.code, cmd.join(' ') + r.stderr).toBe(2);
      expect(r.stderr).toContain(
        'already holds tables of another application in schema "public" (files, jobs)',
      );
      expect(r.stderr).toContain(`state: ${db.url}?options=-c%20search_path%3Dlocsync`);
      expect(r.stderr).toContain('createdb');
      expect(r.stderr).not.toContain('already exists');
    }
    // The suggested URL: locsync makes its schema and leaves the other application's rows alone.
    const ok = await runCli([
      'state',
      'migrate',
      '-c',
      manifest(`${db.url}?options=-c%20search_path%3Dlocsync`),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await c.query(`SELECT name FROM public.jobs`)).rows).toEqual([{ name: 'theirs' }]);
    expect((await c.query(`SELECT to_regclass('locsync.jobs')::text AS t`)).rows[0].t).toBe('locsync.jobs');
    await c.end();
  });

  it('no user name in the URL and no USER: the operating system user, as libpq does', async () => {
    const u = new URL(db.url);
    const who = os.userInfo().username;
    u.username = '';
    const file = manifest(u.toString());
    const r = await runCli(['status', '-c', file], {
      env: { USER: undefined, PGUSER: undefined, LOGNAME: undefined },
    });
    // Connected as the operating system's user: a state not made yet, or that role's refusal named.
    if (r.code === 0) expect(r.stdout).toContain('No state yet');
    else expect(r.stderr).toContain(`role "${who}"`);
    expect(r.stderr).not.toContain('no PostgreSQL user name specified');
  });
});

describe.skipIf(!server)('a schema of its own beside the URL', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(() => db.drop());

  function stateMapping(url: string, schema: string): string {
    const file = path.join(dir, 'pipeline.yaml');
    fs.writeFileSync(
      file,
      `state:\n  url: ${url}\n  schema: ${schema}\nmappings:\n  - name: docs\n    source: src\n    output: out/{path}\n    targets: [{ lang: de }]\n`,
    );
    return file;
  }

  it('`state: { url, schema }` keeps the tables in that schema, as the search_path URL does', async () => {
    const file = stateMapping(db.url, 'manuals');
    const r = await runCli(['state', 'migrate', '-c', file]);
    expect(r.code, r.stderr).toBe(0);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    expect((await c.query(`SELECT to_regclass('manuals.jobs')::text AS t`)).rows[0].t).toBe('manuals.jobs');
    expect((await c.query(`SELECT to_regclass('public.jobs')::text AS t`)).rows[0].t).toBeNull();
    await c.end();
    // The URL form names the same state.
    const same = await runCli(['status', '-c', manifest(`${db.url}?options=-c%20search_path%3Dmanuals`)]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).not.toContain('No state yet');
  });

  it('a schema for a SQLite file, or one the URL contradicts: refused at its line', async () => {
    const sqlite = await runCli(['validate', '-c', stateMapping('.locsync/state.db', 'manuals')]);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stdout + sqlite.stderr).toMatch(
      /pipeline\.yaml:2:\d+.*state\.schema is for a PostgreSQL state/,
    );
    const both = await runCli([
      'validate',
      '-c',
      stateMapping(`${db.url}?options=-c%20search_path%3Dpolicies`, 'manuals'),
    ]);
    expect(both.code).toBe(2);
    expect(both.stdout + both.stderr).toMatch(
      /pipeline\.yaml:3:\d+.*differs from the URL's search_path 'policies'/,
    );
  });
});
