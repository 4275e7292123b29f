import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// `sync --plan plan.json` carries out the reviewed plan, action for action: the run's record of
// what it carried out (log lines "action carried out" at level debug) is the saved plan's actions,
// in their order. A plan whose source changed since it was saved is refused with the difference
// and carries nothing out. Real CLI as a child process, real local service, real state file.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** The actions the run recorded as carried out (JSON log lines on stderr, off a terminal). */
function carriedOut(stderr: string): unknown[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; action?: unknown })
    .filter((l) => l.msg === 'action carried out')
    .map((l) => l.action);
}

const DEBUG = { LOCSYNC_LOG_LEVEL: 'debug' };

describe('sync --plan carries out the saved plan', () => {
  it('the approved actions are the ones carried out; a plan whose source changed is refused with the difference', async () => {
    p = await opsProject();
    p.write('a.txt', 'First document.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    // New work of three kinds: a changed source, a new one, a copy of a done translation.
    p.write('a.txt', 'First document, edited.\n');
    p.write('b.txt', 'Second document.\n');
    p.write('copy.txt', 'First document, edited.\n');
    expect((await p.cli(['plan', '-out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(fs.readFileSync(path.join(p.dir, 'plan.json'), 'utf8')) as {
      plan: { actions: Array<{ kind: string }> };
    };
    expect(new Set(saved.plan.actions.map((a) => a.kind))).toEqual(new Set(['translate', 'reuse']));

    const applied = await p.cli(['sync', '--plan', 'plan.json'], DEBUG);
    expect(applied.code, applied.stderr.slice(-2000)).toBe(0);
    expect(carriedOut(applied.stderr)).toEqual(saved.plan.actions);

    p.write('c.txt', 'Third document.\n');
    expect((await p.cli(['plan', '-out', 'plan.json'])).code).toBe(0);
    p.write('c.txt', 'Third document, edited after the review.\n');
    const refused = await p.cli(['sync', '--plan', 'plan.json'], DEBUG);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('source changed: docs/c.txt → out/de/c.txt (translate, new)');
    expect(carriedOut(refused.stderr)).toEqual([]);
    expect(fs.existsSync(path.join(p.dir, 'out/de/c.txt'))).toBe(false);
  }, 120_000);
});
