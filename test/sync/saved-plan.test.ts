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

describe('saved plan files', () => {
  it('round-trips and refuses a file that is not a saved plan, naming it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-saved-'));
    try {
      const file = path.join(dir, 'plan.json');
      const saved = {
        format: SAVED_PLAN_FORMAT,
        version: SAVED_PLAN_VERSION,
        created_at: '2026-11-23T20:00:00.000Z',
        manifest: { path: '/x/pipeline.yaml', sha256: 'abc' },
        state_token: 't',
        plan: { actions: [] },
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
});
