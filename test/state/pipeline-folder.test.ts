import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openRunState } from '../../src/cli/open-state.js';
import { silentLogger } from '../../src/log/logger.js';
import { loadManifest } from '../../src/manifest/load.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// The default pipeline name is the manifest's folder's. A second project in a folder of the same
// name (another checkout, another team's `docs/`) pointed at the same state joined the first's work
// without a word. It is refused, naming the other manifest, with the fix: `pipeline:`.

const server = await pgForTests();
let dir: string;
let db: TestDatabase | undefined;
afterEach(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await db?.drop();
  db = undefined;
});

/** A project in `<dir>/<parent>/docs` whose state is `state`; answers its manifest's path. */
function project(parent: string, state: string, extra: Record<string, unknown> = {}): string {
  const folder = path.join(dir, parent, 'docs');
  fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
  const manifest = path.join(folder, 'pipeline.yaml');
  fs.writeFileSync(
    manifest,
    stringify({
      version: 1,
      state,
      ...extra,
      mappings: [{ name: 'm', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    }),
  );
  return manifest;
}

async function open(manifest: string): Promise<void> {
  const opened = await openRunState(await loadManifest(manifest), {
    logger: silentLogger(),
    command: 'sync',
    drives: true,
  });
  await opened.close();
}

async function refusedThenNamed(state: string): Promise<void> {
  await open(project('team-a', state));
  const second = project('team-b', state);
  await expect(open(second)).rejects.toThrow(
    /holds the work of pipeline "docs" of manifest .*team-a\/docs\/pipeline\.yaml.*takes the same name from its folder.*`pipeline: <its own name>`.*`pipeline: docs`/,
  );
  // Named as the first one's: the same pipeline, by choice.
  await open(project('team-b', state, { pipeline: 'docs' }));
  // The first project itself opens it as before.
  await open(path.join(dir, 'team-a', 'docs', 'pipeline.yaml'));
}

describe('a pipeline named after its folder', () => {
  it("is refused on a SQLite state that holds another folder's manifest of that name", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-folder-name-'));
    await refusedThenNamed(path.join(dir, 'shared-state.db'));
  });

  it.skipIf(!server)(
    "is refused on a PostgreSQL schema that holds another folder's manifest of that name",
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-folder-name-'));
      db = await createTestDatabase(server!);
      await refusedThenNamed(db.url);
    },
  );
});
