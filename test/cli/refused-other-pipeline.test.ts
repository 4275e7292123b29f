import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse, stringify } from 'yaml';
import { afterEach, expect, it } from 'vitest';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// A manifest of another pipeline pointed at a SQLite state is refused (src/state/pipeline.ts), and
// its refused run is not written into that state: it belongs to the other pipeline, whose status
// must keep saying what its own runs did.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

it('sync and watch of another pipeline refused on a state leave no run in it', async () => {
  p = await opsProject();
  p.write('a.txt', 'A document to translate.\n');
  expect((await p.cli(['sync'])).code).toBe(EXIT.ok);
  const other = path.join(p.dir, 'other.yaml');
  const manifest = parse(fs.readFileSync(p.manifest, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(other, stringify({ ...manifest, pipeline: 'other' }));

  for (const command of ['sync', 'watch']) {
    const refused = await p.cli([command, '-c', other]);
    expect(refused.code, refused.stderr).not.toBe(EXIT.ok);
    expect(refused.stderr).toMatch(/belongs to pipeline "[^"]+".*is pipeline "other"/);
  }
  const db = new Database(path.join(p.dir, '.locsync/state.db'), { readonly: true });
  try {
    expect(db.prepare('SELECT command, status FROM runs ORDER BY id').all()).toEqual([
      { command: 'sync', status: 'ok' },
    ]);
  } finally {
    db.close();
  }
}, 120_000);
