import { afterEach, describe, expect, it } from 'vitest';
import { textRequests } from '../segments/helpers.js';
import { createFixture, folderMapping, runCliOn, type Fixture, type FixtureOptions } from './fixture.js';

// The plan and the sync's summary count the same things with the same words: documents, uploads
// (a whole document sent) and text requests (segments sent, method: segments). What the plan says
// it will bill is what the summary says was billed, for a document mapping, a segments mapping and
// a pipeline with both; the local service's request log counts the calls.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const mapping = (name: string, extra: Record<string, unknown> = {}) =>
  folderMapping(name, ['de', 'fr'], extra);

const FILES = {
  'guide/intro.txt': 'Open the lid.\nPress the green button.\n',
  'guide/care.txt': 'Clean the filter every week.\n',
  'site/home.md': '# Welcome\n\nOur shop ships everywhere.\n',
};

/** "Billed by this plan: <calls>, <bill>" → [calls, bill]. */
function planned(stdout: string): [string, string] {
  const m = /^Billed by this plan: (.+), ([\d,]+ characters)$/m.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return [m![1]!, m![2]!];
}

/** "Billed: <bill> for <calls>, in 3s" → [calls, bill]. */
function billed(stdout: string): [string, string] {
  const m = /^Billed: ([\d,]+ characters) for (.+), in \S+$/m.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return [m![2]!, m![1]!];
}

async function planThenSync(
  mappings: unknown[],
  service?: FixtureOptions['service'],
): Promise<{ plan: [string, string]; run: [string, string]; each: number[] }> {
  fx = await createFixture({ manifest: { mappings }, files: FILES, ...(service ? { service } : {}) });
  const plan = await runCliOn(fx, 'plan', '--no-progress');
  expect(plan.code, plan.stderr).toBe(0);
  const sync = await runCliOn(fx, 'sync', '--no-progress');
  expect(sync.code, sync.stderr).toBe(0);
  // What the plan prices each document at: "  + a.txt → out/de/a.txt (de, new): 37 characters".
  const each = [...plan.stdout.matchAll(/^ {2}\+ .+: (\d+) characters$/gm)].map((m) => Number(m[1]));
  return { plan: planned(plan.stdout), run: billed(sync.stdout), each };
}

describe('plan and summary name the billed calls alike', () => {
  it('a document mapping: uploads', async () => {
    const { plan, run } = await planThenSync([mapping('guide')]);
    expect(plan).toEqual(['4 uploads', run[1]]);
    expect(run).toEqual(plan);
    expect(fx!.uploads()).toHaveLength(4);
  }, 180_000);

  it('a segments mapping: documents sent as text requests, never "uploads"', async () => {
    const { plan, run } = await planThenSync([mapping('site', { method: 'segments' })]);
    expect(textRequests(fx!)).toHaveLength(2);
    expect(fx!.uploads()).toHaveLength(0);
    expect(plan).toEqual(['2 documents: 2 text requests', run[1]]);
    expect(run).toEqual(plan);
  }, 180_000);

  it('both: the documents, then the uploads and the text requests apart', async () => {
    const { plan, run } = await planThenSync([mapping('guide'), mapping('site', { method: 'segments' })]);
    expect(fx!.uploads()).toHaveLength(4);
    expect(textRequests(fx!)).toHaveLength(2);
    expect(plan).toEqual(['6 documents: 4 uploads and 2 text requests', run[1]]);
    expect(run).toEqual(plan);
  }, 180_000);
});

describe('a run that uploads more than once for a document says which uploads were extra', () => {
  const characters = (s: string) => Number(s.replace(/\D/g, ''));

  it('a lost answer: the unconfirmed upload is named apart, its bill the difference', async () => {
    const { plan, run, each } = await planThenSync([mapping('guide')], {
      faults: [{ match: { method: 'POST', path: '/v2/document' }, drop: 1, dropAfterBody: true }],
    });
    expect(plan[0]).toBe('4 uploads');
    // The service took 5 uploads: the one whose answer was lost, and the 4 answered.
    expect(fx!.service.requests().filter((r) => r.path === '/v2/document' && r.upload)).toHaveLength(5);
    expect(run[0]).toBe('4 documents: 4 uploads and 1 unconfirmed upload (possibly billed)');
    expect(each).toContain(characters(run[1]) - characters(plan[1]));
  }, 180_000);

  it('a lost download: the upload again is named, billed twice', async () => {
    const { plan, run, each } = await planThenSync([mapping('guide')], {
      faults: [{ match: { method: 'POST', path: '/v2/document/' }, cutDownloads: 1, cutAfterBytes: 5 }],
    });
    expect(plan[0]).toBe('4 uploads');
    expect(fx!.uploads()).toHaveLength(5);
    expect(run[0]).toBe('4 documents: 5 uploads (1 again after a lost download: billed twice)');
    expect(each).toContain(characters(run[1]) - characters(plan[1]));
  }, 180_000);
});

describe('a budget refusal names the calls the plan would make, in the plan’s words', () => {
  async function refused(mappings: unknown[], files: Record<string, string>): Promise<string> {
    fx = await createFixture({ manifest: { mappings }, files });
    const sync = await runCliOn(fx, 'sync', '--max-billed', '5', '--no-progress');
    expect(sync.code, sync.stderr).toBe(5);
    expect(fx.uploads()).toHaveLength(0);
    expect(textRequests(fx)).toHaveLength(0);
    return sync.stderr;
  }

  it('one upload is "1 upload"', async () => {
    const stderr = await refused([folderMapping('guide', ['de'])], {
      'guide/care.txt': FILES['guide/care.txt'],
    });
    expect(stderr).toContain('the plan bills 28 characters for 1 upload; nothing was sent:');
  }, 180_000);

  it('a segments mapping: its documents and text requests, never "uploads"', async () => {
    const stderr = await refused([mapping('site', { method: 'segments' })], {
      'site/home.md': FILES['site/home.md'],
    });
    expect(stderr).toMatch(
      /the plan bills [\d,]+ characters for 2 documents: 2 text requests; nothing was sent:/,
    );
    expect(stderr).toContain('(see what it would send: locsync plan');
    expect(stderr).not.toContain('upload');
  }, 180_000);
});
