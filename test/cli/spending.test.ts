import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// Knowing the bill before paying it, over real HTTP (the local service on port 0), real state files
// and the CLI as a child process with piped output (no terminal, as under cron).

const SAMPLES = path.resolve(__dirname, '../../samples');

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** Every document the service accepted (downloaded or not): what was uploaded, and so billed. */
function uploads(project: OpsProject): number {
  const db = new Database(path.join(project.serviceData, 'service.db'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM documents').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitUntil(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(25);
  }
}

/** Rewrites the manifest: `edit` gets the parsed YAML and changes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a manifest edited as the user would, any key
type AnyManifest = Record<string, any>;
function editManifest(project: OpsProject, edit: (m: AnyManifest) => void): void {
  const m = parse(fs.readFileSync(project.manifest, 'utf8')) as AnyManifest;
  edit(m);
  fs.writeFileSync(project.manifest, stringify(m));
}

/** A few samples: text, html, an image, and two formats billed at least 50,000 characters. */
function copySamples(project: OpsProject): void {
  for (const f of [
    'readme.txt',
    'web/index.html',
    'images/logo.png',
    'office/report.docx',
    'office/report.pdf',
  ])
    project.write(f, fs.readFileSync(path.join(SAMPLES, f)));
}

describe('priced plans', () => {
  it('plan prices every upload of the samples as the service bills it, minimums apart, in text and JSON', async () => {
    p = await opsProject({ manifest: { billing: { price_per_million: 25, currency: 'EUR' } } });
    copySamples(p);
    const text = await p.cli(['plan']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /office\/report\.docx → out\/de\/office\/report\.docx \(de, new\): 50,000 characters \(€1\.25\): [\d,]+ \+ [\d,]+ minimum/,
    );
    expect(text.stdout).toMatch(/images\/logo\.png .*: 0 characters \(€0\.00\) \(image\)/);
    expect(text.stdout).toMatch(
      /Billed by this plan: 10 uploads, [\d,]+ characters \(€[\d.]+\); [\d,]+ of them added by the 50,000-character minimum/,
    );
    expect(text.stdout).toMatch(/by target: de [\d,]+ characters \(€[\d.]+\) · fr /);
    expect(text.stdout).toMatch(/by reason: new /);

    const json = JSON.parse((await p.cli(['plan', '--json'])).stdout);
    const priced = json.files.toTranslate;
    expect(priced).toHaveLength(10);
    const sum = priced.reduce((n: number, a: { price: { billed: number } }) => n + a.price.billed, 0);
    expect(json.price.total.billed).toBe(sum);
    expect(json.price.currency).toBe('EUR');
    const docx = priced.find(
      (a: { file: string; target: string }) => a.file === 'office/report.docx' && a.target === 'de',
    );
    expect(docx.price.billed).toBe(50_000);
    expect(docx.price.minimumAdded).toBe(50_000 - docx.price.characters);

    // The local service counts as the plan did: what the sync bills is what the plan said.
    const sync = await p.cli(['sync']);
    expect(sync.code).toBe(0);
    const money = `€${(Math.round(json.price.total.billed * 25) / 1_000_000).toFixed(2)}`;
    // The summary says the bill in characters and money, as the plan did.
    expect(sync.stdout).toContain(
      `Billed: ${json.price.total.billed.toLocaleString('en-US')} characters (${money}) for 10 uploads`,
    );
    const report = JSON.parse((await p.cli(['report', '--format', 'json'])).stdout);
    expect(report.total.billed_characters).toBe(json.price.total.billed);
    // --json of a sync carries the money too (nothing to do now: zero).
    const again = JSON.parse((await p.cli(['sync', '--json'])).stdout);
    expect(again.billedCost).toEqual({ amount: 0, currency: 'EUR' });
  }, 180_000);

  it('sync --dry-run prints the same priced plan and uploads nothing', async () => {
    p = await opsProject();
    p.write('a.txt', 'Hello world, this is a test.\n');
    const dry = await p.cli(['sync', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('a.txt → out/de/a.txt (de, new): 28 characters');
    expect(dry.stdout).toContain('Billed by this plan: 2 uploads, 56 characters');
    expect(uploads(p)).toBe(0);
  }, 60_000);
});

describe('saved plans', () => {
  it('a saved plan is carried out as it is, and refused (exit 2, what changed) after a source edit', async () => {
    p = await opsProject();
    p.write('a.txt', 'First document.\n');
    p.write('b.txt', 'Second document.\n');
    const saved = await p.cli(['plan', '-out', 'plan.json']);
    expect(saved.code).toBe(0);
    expect(fs.existsSync(path.join(p.dir, 'plan.json'))).toBe(true);
    const applied = await p.cli(['sync', '--plan', 'plan.json']);
    expect(applied.code).toBe(0);
    expect(uploads(p)).toBe(4);

    p.write('c.txt', 'Third document.\n');
    expect((await p.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    p.write('c.txt', 'Third document, edited after the review.\n');
    const refused = await p.cli(['sync', '--plan', 'plan.json']);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('source changed: docs/c.txt → out/de/c.txt (translate, new)');
    expect(uploads(p)).toBe(4);
  }, 120_000);
});

describe('saved plans that were tampered with', () => {
  it('an edited price or size, actions: null, 300,000 actions: refused with exit 2 and the reason, nothing uploaded, no crash', async () => {
    p = await opsProject();
    p.write('a.txt', 'First document.\n');
    expect((await p.cli(['plan', '-out', 'plan.json'])).code).toBe(0);
    const original = JSON.parse(fs.readFileSync(path.join(p.dir, 'plan.json'), 'utf8')) as {
      plan: {
        actions: Array<{ source: { size: number } } | null> | null;
        files: { toTranslate: Array<{ price: { billed: number } }>; price: { total: { billed: number } } };
      };
    };
    const tampered = (name: string, edit: (plan: typeof original.plan) => void) => {
      const copy = structuredClone(original);
      edit(copy.plan);
      fs.writeFileSync(path.join(p!.dir, name), JSON.stringify(copy, null, 2));
      return p!.cli(['sync', '--plan', name]);
    };

    const cheaper = await tampered('cheaper.json', (plan) => {
      plan.files.toTranslate[0]!.price.billed = 1;
      plan.files.price.total.billed = 16;
    });
    expect(cheaper.code).toBe(EXIT.usage);
    expect(cheaper.stderr).toContain('was it edited after it was saved?');
    expect(cheaper.stderr).toContain('plan.files.toTranslate[0].price.billed: 1 in the file, 15 now');
    expect(cheaper.stderr).toContain('plan.files.price.total.billed: 16 in the file, 30 now');

    const smaller = await tampered('smaller.json', (plan) => {
      plan.actions![1]!.source.size = 1;
    });
    expect(smaller.code).toBe(EXIT.usage);
    expect(smaller.stderr).toContain('plan.actions[1].source.size: 1 in the file, 16 now');

    const none = await tampered('null.json', (plan) => {
      plan.actions = null;
    });
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toMatch(
      /null\.json: not a valid saved plan[^]*plan\.actions: .*expected array, received null/,
    );

    const huge = await tampered('huge.json', (plan) => {
      plan.actions = Array.from(
        { length: 300_000 },
        (_, i) => ({ kind: 'forget', mapping: 'docs', file: `f${i}.txt` }) as never,
      );
    });
    expect(huge.code).toBe(EXIT.usage);
    expect(huge.stderr).toContain('no longer planned: docs/f0.txt (forget)');
    expect(huge.stderr).toContain('... and more');
    expect(huge.stderr).not.toMatch(/Maximum call stack|Cannot read properties/);
    expect(huge.stderr.split('\n').length).toBeLessThan(40);
    expect(uploads(p)).toBe(0);
  }, 120_000);
});

describe('budgets', () => {
  it('a run cap stops the run before any upload with its own exit code; --max-billed lets this run through', async () => {
    p = await opsProject({ manifest: { budget: { per_run: 50 } } });
    p.write('a.txt', 'A document with more than fifty characters in it, to go over.\n');
    const stopped = await p.cli(['sync']);
    expect(stopped.code).toBe(EXIT.budget);
    expect(stopped.stderr).toContain('budget.per_run (50)');
    expect(stopped.stderr).toContain('--max-billed');
    expect(stopped.stderr).toMatch(/this run would bill 1\d\d characters/);
    expect(uploads(p)).toBe(0);

    const allowed = await p.cli(['sync', '--max-billed', '1000']);
    expect(allowed.code).toBe(0);
    expect(uploads(p)).toBe(2);
  }, 120_000);

  it('--max-billed alone caps a run from the command line', async () => {
    p = await opsProject();
    p.write('a.txt', 'A document with some characters.\n');
    const stopped = await p.cli(['sync', '--max-billed', '10']);
    expect(stopped.code).toBe(EXIT.budget);
    expect(stopped.stderr).toContain('--max-billed 10');
    expect(uploads(p)).toBe(0);
  }, 60_000);

  it('a monthly cap counts what the month billed already', async () => {
    p = await opsProject();
    p.write('a.txt', 'One document this month.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    const billed = JSON.parse((await p.cli(['report', '--format', 'json'])).stdout).total.billed_characters;
    editManifest(p, (m) => (m.budget = { per_month: billed + 20 }));
    p.write('b.txt', 'Another document that would go over the month.\n');
    const stopped = await p.cli(['sync']);
    expect(stopped.code).toBe(EXIT.budget);
    expect(stopped.stderr).toContain(
      `budget.per_month (${(billed + 20).toLocaleString('en-US')}; ${billed} billed this month)`,
    );
    expect(uploads(p)).toBe(2);
    const status = await p.cli(['status', '--no-scan']);
    expect(status.stdout).toMatch(
      /This month \(\d{4}-\d{2}\): \d+ characters billed, \d+% of budget\.per_month/,
    );
  }, 120_000);

  it('a cap reached during the run (a source grew after it was priced) stops further uploads; the document in flight is collected', async () => {
    // One upload at a time, each document 2 s at the service: b.txt waits while a.txt is translated.
    p = await opsProject({ service: { translateSeconds: 2 } });
    editManifest(p, (m) => {
      m.service.concurrency = 1;
      m.mappings[0].targets = [{ lang: 'de' }];
      m.budget = { per_run: 200 };
    });
    p.write('a.txt', 'The first document, priced and sent.\n');
    p.write('b.txt', 'The second document, small when the plan was priced.\n');
    const run = p.cli(['sync']);
    const project = p;
    await waitUntil('a.txt uploaded', () => uploads(project) === 1);
    // Grown while the run goes on: the plan's price (under the cap) no longer holds.
    p.write('b.txt', 'Now it holds far more text than the cap allows for this run. '.repeat(10));
    const stopped = await run;
    expect(stopped.code).toBe(EXIT.budget);
    expect(stopped.stderr).toContain('budget reached during the run');
    expect(stopped.stderr).toContain('budget.per_run (200)');
    expect(uploads(p)).toBe(1);
    // The document that was in flight when uploads stopped is delivered, the other is not sent.
    expect(fs.readFileSync(path.join(p.dir, 'out/de/a.txt'), 'utf8')).not.toBe('');
    expect(fs.existsSync(path.join(p.dir, 'out/de/b.txt'))).toBe(false);

    const status = JSON.parse((await p.cli(['status', '--no-scan', '--json'])).stdout);
    expect(status.last_outcome).toMatchObject({ status: 'failed', reason: 'budget' });
    const failure = status.failures.find((f: { file: string }) => f.file === 'b.txt');
    expect(failure.kind).toBe('budget');
    expect(failure.advice).toMatch(/--max-billed/);

    // Allowed for one run: only what is left is uploaded.
    const allowed = await p.cli(['sync', '--max-billed', '5000']);
    expect(allowed.code).toBe(0);
    expect(uploads(p)).toBe(2);
    expect(fs.existsSync(path.join(p.dir, 'out/de/b.txt'))).toBe(true);
  }, 120_000);
});

describe('opt-in re-translation', () => {
  it('re-billing every output without a terminal needs --yes', async () => {
    p = await opsProject();
    p.write('a.txt', 'Hello.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    const refused = await p.cli(['sync', '--retranslate', 'all']);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('needs --yes');
    expect(uploads(p)).toBe(2);
    const confirmed = await p.cli(['sync', '--retranslate', 'all', '--yes']);
    expect(confirmed.code).toBe(0);
    expect(confirmed.stderr).not.toContain('needs --yes');
    // Every output uploaded (and billed) again: one per target, none copied from another.
    expect(uploads(p)).toBe(4);
  }, 120_000);

  it('a formality edit: nothing billed by a plain sync, stale with its reason in plan, re-translated on request', async () => {
    p = await opsProject();
    p.write('a.txt', 'Could you open the door?\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    editManifest(p, (m) => (m.mappings[0].targets[0].formality = 'more'));
    const plain = await p.cli(['sync']);
    expect(plain.code).toBe(0);
    expect(uploads(p)).toBe(2);
    const plan = await p.cli(['plan']);
    expect(plan.stdout).toMatch(/out\/de\/a\.txt.*settings changed/);
    expect(plan.stdout).toMatch(
      /1 stale output would bill \d+ characters to re-translate \(settings changed: 1/,
    );
    const again = await p.cli(['sync', '--retranslate', 'settings', '--yes']);
    expect(again.code).toBe(0);
    expect(uploads(p)).toBe(3);
    expect((await p.cli(['sync'])).code).toBe(0);
    expect(uploads(p)).toBe(3);
  }, 120_000);
});

describe('state that never forgets what was paid', () => {
  it('an emptied state: sync uploads nothing and says how to recover; after state adopt a sync uploads nothing', async () => {
    p = await opsProject();
    p.write('a.txt', 'First.\n');
    p.write('b.txt', 'Second.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    const statePath = path.join(p.dir, '.locsync', 'state.db');
    for (const f of ['', '-wal', '-shm']) fs.rmSync(statePath + f, { force: true });

    const refused = await p.cli(['sync']);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain(
      'records no translation, but 4 output(s) it would upload for exist already',
    );
    expect(refused.stderr).toContain('locsync state adopt');
    expect(uploads(p)).toBe(4);

    p.write('b.txt', 'Second, edited after its translation.\n');
    const adopt = await p.cli(['state', 'adopt', '--json']);
    expect(adopt.code).toBe(0);
    const adopted = JSON.parse(adopt.stdout) as {
      adopted: Array<{ file: string; target: string }>;
      not_adopted: Array<{ file: string; target: string; why: string }>;
    };
    expect(adopted.adopted.map((a) => `${a.file}:${a.target}`).sort()).toEqual(['a.txt:de', 'a.txt:fr']);
    expect(adopted.not_adopted.map((a) => `${a.file}:${a.target}`).sort()).toEqual(['b.txt:de', 'b.txt:fr']);
    expect(adopted.not_adopted[0]?.why).toMatch(/the source changed after the output was written/);
    // Again, as text: nothing left to adopt, b.txt still not vouched for.
    const again = await p.cli(['state', 'adopt']);
    expect(again.stdout).toContain('Adopted 0 outputs');
    expect(again.stdout).toMatch(/docs\/b\.txt -> de: the source changed after the output was written/);
    const after = await p.cli(['sync']);
    expect(after.code).toBe(0);
    expect(uploads(p)).toBe(6); // only b.txt, edited: de and fr
  }, 120_000);
});
