import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, openBrowser, SCREENSHOTS } from '../helpers/browser.js';
import { commitAll } from './git-in-fixture.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// The review page of a string file and a Markdown guide, compared with a commit (git), as a
// reviewer reads it in Debian's chromium: a string file's values are matched by key (a key removed
// next to a changed one does not lend the changed one its translation), placeholders and inline code
// are shown in place and marked, and the page says which translation is a person's wording and
// which the machine's.

let fx: Fixture;
beforeAll(async () => {
  fx = await reviewedProject();
});
afterAll(async () => {
  await fx?.close();
});

const EN = {
  title: 'Photo Library',
  inbox: 'You have {count} new messages',
  delete: 'Delete %s?',
  old: 'The old feature has {count} users',
};
const json = (o: Record<string, string>) => `${JSON.stringify(o, null, 2)}\n`;

/**
 * Translated and committed; then a reviewer corrects the title, and the source loses `delete`,
 * changes `old` (the key after it), gains `albums`; the guide's sentence around its code changes.
 */
async function reviewedProject(): Promise<Fixture> {
  const common = { source_lang: 'en', targets: [{ lang: 'de' }] };
  const f = await createFixture({
    manifest: {
      mappings: [
        {
          name: 'web',
          source: 'src/web',
          include: ['en.json'],
          output: 'out/web/{lang}.json',
          method: 'segments',
          ...common,
        },
        {
          name: 'guide',
          source: 'src/guide',
          output: 'out/guide/{lang}/{path}',
          method: 'segments',
          ...common,
        },
      ],
    },
    files: { 'web/en.json': json(EN), 'guide/api.md': 'The old API (`v1`) is still here.\n' },
  });
  expect((await f.sync()).failed).toEqual([]);
  commitAll(f, 'first translation');
  const de = 'out/web/de.json';
  const machineTitle = JSON.parse(f.read(de)).title as string;
  f.write(de, f.read(de).replace(JSON.stringify(machineTitle), '"Fotobibliothek"'));
  const { delete: _gone, ...kept } = EN;
  f.write(
    'src/web/en.json',
    json({ ...kept, old: 'The old feature has {count} active users', albums: 'Your albums' }),
  );
  f.write('src/guide/api.md', 'The old API (`v1`) was removed.\n');
  expect((await f.sync()).failed).toEqual([]);
  expect(JSON.parse(f.read(de)).title).toBe('Fotobibliothek');
  return f;
}

type Part = { kind: string; text: string; code?: true };
type Row = {
  kind: string;
  key?: string;
  where: string;
  previous: Part[] | null;
  next: Part[] | null;
  previous_by?: string;
  next_by?: string;
};
const text = (parts: Part[] | null) => (parts ?? []).map((p) => p.text).join('');

describe('locsync review of string files and inline code', () => {
  it('--json: values by key, added and removed keys apart, placeholders kept, whose wording each is', async () => {
    const r = await runCliOn(fx, 'review', '--since', 'HEAD', '--json');
    expect(r.code, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout).sections[0].documents as Array<{
      output: string;
      comparison: { rows: Row[] };
    }>;
    const machine = (rel: string) => execFileSync('git', ['show', `HEAD:${rel}`], { cwd: fx.dir }).toString();
    const before = JSON.parse(machine('out/web/de.json')) as Record<string, string>;
    const now = JSON.parse(fx.read('out/web/de.json')) as Record<string, string>;
    const rows = docs.find((d) => d.output === 'out/web/de.json')!.comparison.rows;
    expect(rows.map((x) => [x.kind, x.key])).toEqual([
      ['changed', 'title'],
      ['changed', 'old'],
      ['added', 'albums'],
      ['removed', 'delete'],
    ]);
    const byKey: Record<string, Row> = Object.fromEntries(rows.map((x) => [x.key, x]));
    // A changed key shows its own previous translation, its placeholder in place and marked.
    expect(text(byKey.old!.previous)).toBe(before.old);
    expect(text(byKey.old!.next)).toBe(now.old);
    expect(byKey.old!.next!.filter((p) => p.code).map((p) => p.text)).toEqual(['{count}']);
    expect(text(byKey.delete!.previous)).toBe(before.delete);
    expect(byKey.delete!.previous!.some((p) => p.code && p.text === '%s')).toBe(true);
    // The reviewer's title is theirs; the values locsync translated are the machine's.
    expect(byKey.title).toMatchObject({ next_by: 'person' });
    expect(text(byKey.title!.next)).toBe('Fotobibliothek');
    expect(byKey.old).toMatchObject({ next_by: 'machine' });
    expect(byKey.albums).toMatchObject({ next_by: 'machine' });
    // Markdown inline code stays in the text shown.
    const guide = docs.find((d) => d.output === 'out/guide/de/api.md')!.comparison.rows;
    expect(guide).toHaveLength(1);
    expect(text(guide[0]!.previous)).toContain('(`v1`)');
    expect(text(guide[0]!.next)).toContain('(`v1`)');
    expect(guide[0]!.next!.filter((p) => p.code).map((p) => p.text)).toEqual(['`v1`']);
  });

  it.skipIf(!HAS_CHROMIUM)(
    'the page in chromium shows them in place, marked, with a person or machine tag',
    async () => {
      const file = path.join(fx.dir, 'review.html');
      const r = await runCliOn(fx, 'review', '--since', 'HEAD', '-o', file);
      expect(r.code, r.stderr).toBe(0);
      const browser = await openBrowser();
      try {
        const page = browser.page;
        await page.goto(pathToFileURL(file).href);
        expect(browser.errors).toEqual([]);
        const web = page.locator('article.doc[data-output="out/web/de.json"]');
        const row = (key: string) => web.locator('tbody tr', { hasText: `key ${key}` });
        expect(await web.locator('tbody tr').count()).toBe(4);
        expect(await row('old').locator('td.where').innerText()).toContain('changed');
        expect(await row('albums').locator('td.where').innerText()).toContain('new key');
        expect(await row('delete').locator('td.where').innerText()).toContain('key removed');
        // The placeholder is in the sentence, drawn as code: never a gap ("You have  new messages").
        expect(await row('old').locator('td.new code.ph').allInnerTexts()).toEqual(['{count}']);
        expect(await row('old').locator('td.source').innerText()).toContain('{count}');
        expect(await row('delete').locator('td.previous code.ph').allInnerTexts()).toEqual(['%s']);
        const drawn = await page.evaluate(
          `getComputedStyle(document.querySelector('article.doc code.ph')).borderTopStyle`,
        );
        expect(drawn).toBe('solid');
        expect(await row('title').locator('td.new .by').innerText()).toBe('reviewed by a person');
        expect(await row('old').locator('td.new .by').innerText()).toBe('machine translation');
        const guide = page.locator('article.doc[data-output="out/guide/de/api.md"]');
        expect(await guide.locator('td.new code.ph').allInnerTexts()).toEqual(['`v1`']);
        expect(await guide.locator('td.source code.ph').allInnerTexts()).toEqual(['`v1`']);
        expect((await guide.locator('td.source ins').allInnerTexts()).join(' ')).toMatch(/was.*removed/);
        await web.screenshot({ path: path.join(SCREENSHOTS, 'review-strings.png') });
      } finally {
        await browser.close();
      }
    },
  );
});
