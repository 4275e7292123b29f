import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// One definition per rule: a name exported by two modules of src/ is either one rule written twice
// (two that drift: the manifest's formality check and the local service's once disagreed on es-419)
// or two things under one name, which a reader takes for one. Either way it fails here, with the
// modules that define it. The names below are one per backend or per side on purpose.

const SRC = path.resolve(__dirname, '../../src');

/** Exported by more than one module on purpose, with the reason. */
const SAME_NAME_ON_PURPOSE: Record<string, string> = {
  MIGRATIONS: 'each state backend has its own schema (state/sqlite, state/postgres)',
  SCRUB_ERRORS_MIGRATION: 'a step of each backend’s migrations',
  CONTENT_DIGESTS_MIGRATION: 'a step of each backend’s migrations',
  SOURCE_LANGUAGES:
    'the manifest’s list (lower case, what locsync offers) and the local service’s (as the real service answers)',
  TARGET_LANGUAGES:
    'as SOURCE_LANGUAGES (the local service also takes ES-419, which the manifest does not offer)',
  changedSince: 'review/git: files changed since a commit; xliff/since: units changed since a run or ref',
};

const EXPORTED = /^export\s+(?:async\s+)?(?:function\*?|const|let|class|enum)\s+([A-Za-z_$][\w$]*)/gm;

function definitions(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const f of fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!f.endsWith('.ts')) continue;
    const file = f.split(path.sep).join('/');
    for (const m of fs.readFileSync(path.join(SRC, f), 'utf8').matchAll(EXPORTED))
      byName.set(m[1]!, [...(byName.get(m[1]!) ?? []), file]);
  }
  return byName;
}

describe('one definition', () => {
  it('no function, constant or class is exported under one name by two modules of src/', () => {
    const twice = [...definitions()]
      .filter(([name, files]) => files.length > 1 && !(name in SAME_NAME_ON_PURPOSE))
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('each name listed on purpose is still exported twice (the list only shrinks)', () => {
    const defs = definitions();
    const once = Object.keys(SAME_NAME_ON_PURPOSE).filter((name) => (defs.get(name)?.length ?? 0) < 2);
    expect(once).toEqual([]);
  });
});
