import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  planDifferences,
  readSavedPlan,
  SAVED_PLAN_FORMAT,
  SAVED_PLAN_VERSION,
  writeSavedPlan,
  type ComparableAction,
} from '../../src/sync/plan/saved.js';
import { fieldDifferences } from '../../src/sync/plan/saved-plan-fields.js';
import { ConfigError } from '../../src/util/errors.js';

const ref = (file: string, target = 'de') => ({
  mapping: 'docs',
  file,
  target,
  output: `out/${target}/${file}`,
});
const translate = (file: string, sha: string, fp = 'fp1', reason = 'new'): ComparableAction => ({
  kind: 'translate',
  ref: ref(file),
  reason,
  source: { sha256: sha },
  settings: { fingerprint: fp },
});

describe('planDifferences', () => {
  const saved = [
    translate('a.txt', 's1'),
    translate('b.txt', 's2'),
    { kind: 'forget', mapping: 'docs', file: 'old.txt' },
  ];

  it('finds nothing when the fresh plan does the same', () => {
    expect(planDifferences(saved, [...saved])).toEqual([]);
  });

  it('names an edited source, changed settings, new and dropped work', () => {
    const fresh = [
      translate('a.txt', 's1-edited'),
      translate('b.txt', 's2', 'fp2'),
      translate('c.txt', 's3'),
    ];
    expect(planDifferences(saved, fresh)).toEqual([
      'source changed: docs/a.txt → out/de/a.txt (translate, new)',
      'settings changed: docs/b.txt → out/de/b.txt (translate, new)',
      'new in the plan now: docs/c.txt → out/de/c.txt (translate, new)',
      'no longer planned: docs/old.txt (forget)',
    ]);
  });

  it('names work whose kind changed (state moved on: translated since, now reused or unchanged)', () => {
    const fresh: ComparableAction[] = [
      {
        kind: 'reuse',
        ref: ref('a.txt'),
        from: 'out/de/x.txt',
        source: { sha256: 's1' },
        settings: { fingerprint: 'fp1' },
      },
    ];
    expect(planDifferences([translate('a.txt', 's1')], fresh)).toEqual([
      'now docs/a.txt → out/de/a.txt (reuse), was docs/a.txt → out/de/a.txt (translate, new)',
    ]);
  });
});

const EMPTY_FILES = {
  toTranslate: [],
  toReuse: [],
  toResume: [],
  stale: [],
  unchanged: 0,
  unsupported: [],
  skipped: [],
  gaveUp: [],
  toDelete: [],
  price: { total: { documents: 0, billed: 0 } },
};
/** A saved plan's fields around its body. */
const HEADER = {
  format: SAVED_PLAN_FORMAT,
  version: SAVED_PLAN_VERSION,
  created_at: '2026-11-23T20:00:00.000Z',
  manifest: { path: '/x/pipeline.yaml', sha256: 'abc' },
  state_token: 't',
} as const;

describe('saved plan files', () => {
  it('round-trips and refuses a file that is not a saved plan, naming it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-saved-'));
    try {
      const file = path.join(dir, 'plan.json');
      const saved = {
        ...HEADER,
        plan: { actions: [], inputs: { manifest: '/x/pipeline.yaml' }, files: EMPTY_FILES },
      } as const;
      writeSavedPlan(file, saved);
      expect(readSavedPlan(file)).toEqual(saved);
      fs.writeFileSync(file, '{"actions": []}');
      expect(() => readSavedPlan(file)).toThrow(ConfigError);
      expect(() => readSavedPlan(file)).toThrow(/not a plan saved by this locsync/);
      expect(() => readSavedPlan(path.join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file of the wrong shape with the fields named, in bounded work, without crashing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-saved-'));
    try {
      const file = path.join(dir, 'plan.json');
      const base = HEADER;
      const body = { inputs: { manifest: '/x/pipeline.yaml' }, files: EMPTY_FILES };
      fs.writeFileSync(file, JSON.stringify({ ...base, plan: { ...body, actions: null } }));
      expect(() => readSavedPlan(file)).toThrow(/not a valid saved plan[^]*plan\.actions: .*expected array/i);
      fs.writeFileSync(
        file,
        JSON.stringify({ ...base, plan: { ...body, actions: [], files: { ...EMPTY_FILES, unchanged: -1 } } }),
      );
      expect(() => readSavedPlan(file)).toThrow(/plan\.files\.unchanged: Too small/);
      fs.writeFileSync(file, JSON.stringify({ ...base, plan: { ...body, actions: [{ kind: 'launch' }] } }));
      expect(() => readSavedPlan(file)).toThrow(/plan\.actions\.0\.kind: Invalid option/);
      // A million broken actions: the first five shown, the others not even checked.
      const broken = Array.from({ length: 1_000_000 }, () => ({ kind: 7 }));
      fs.writeFileSync(file, JSON.stringify({ ...base, plan: { ...body, actions: broken } }));
      expect(() => readSavedPlan(file)).toThrow(/plan\.actions\.4\.kind: [^\n]*\n {2}\.\.\. and more$/);
      // Deeply nested JSON where a field should be: refused, no stack overflow.
      fs.writeFileSync(file, `{"format":"locsync-plan","plan":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
      expect(() => readSavedPlan(file)).toThrow(ConfigError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fieldDifferences', () => {
  it('names each edited field by its path, the value in the file beside the one computed now, up to the limit', () => {
    const fresh = { files: { toTranslate: [{ file: 'a.txt', price: { billed: 15 } }], unchanged: 2 } };
    const saved = {
      files: { toTranslate: [{ file: 'a.txt', price: { billed: 1 } }], unchanged: 2, extra: true },
    };
    expect(fieldDifferences('plan', saved, fresh, 10)).toEqual({
      lines: [
        'plan.files.toTranslate[0].price.billed: 1 in the file, 15 now',
        'plan.files.extra: true in the file, nothing now',
      ],
      more: false,
    });
    expect(fieldDifferences('plan', fresh, JSON.parse(JSON.stringify(fresh)), 10)).toEqual({
      lines: [],
      more: false,
    });
    const many = Array.from({ length: 300_000 }, (_, i) => ({ size: i }));
    const edited = many.map((a) => ({ size: a.size + 1 }));
    expect(fieldDifferences('plan', edited, many, 3)).toEqual({
      lines: [
        'plan[0].size: 1 in the file, 0 now',
        'plan[1].size: 2 in the file, 1 now',
        'plan[2].size: 3 in the file, 2 now',
      ],
      more: true,
    });
  });
});
