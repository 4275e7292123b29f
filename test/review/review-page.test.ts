import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openBrowser, HAS_CHROMIUM, SCREENSHOTS } from '../helpers/browser.js';
import { commitAll, git } from './git-in-fixture.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// `locsync review`: the page a reviewer reads instead of whole documents. Here with a real project
// in a git repository, synced by the local service: compared with a commit, the page shows the
// changed segments with their changed words marked, escapes what documents hold, and loads nothing
// from the network (checked in Debian's chromium).

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A translated guide committed to git, then its second line changed and a line added, synced. */
async function changedInGit(): Promise<Fixture> {
  const f = await createFixture({
    files: { 'guide.txt': 'Hello world.\nThe door opens at noon.\nGood bye <script>alert(1)</script>.\n' },
  });
  expect((await f.sync()).failed).toEqual([]);
  commitAll(f, 'first translation');
  f.write(
    'src/guide.txt',
    'Hello world.\nThe door opens at three.\nA new line.\nGood bye <script>alert(1)</script>.\n',
  );
  expect((await f.sync()).failed).toEqual([]);
  return f;
}

describe('locsync review', () => {
  it.skipIf(!HAS_CHROMIUM)(
    '--since a git ref: a page in chromium marks the changes and loads nothing from the network',
    async () => {
      fx = await changedInGit();
      const file = path.join(fx.dir, 'review.html');
      const r = await runCliOn(fx, 'review', '--since', 'HEAD', '-o', file);
      expect(r.stderr).toContain('2 documents changed since git HEAD');
      expect(r.code).toBe(0);

      const browser = await openBrowser();
      try {
        const requests: string[] = [];
        browser.page.on('request', (q) => requests.push(q.url()));
        const url = pathToFileURL(file).href;
        await browser.page.goto(url);
        const page = browser.page;
        // Nothing but the page itself (the icon is a data: URL, which is not a request).
        expect(requests).toEqual([url]);
        expect(browser.errors).toEqual([]);
        expect(await page.locator('script').count()).toBe(0);
        expect(await page.locator('article.doc').count()).toBe(2);

        const de = page.locator('article.doc[data-language="de"]');
        await expect.poll(() => de.locator('h3').innerText()).toContain('out/de/guide.txt');
        // Only the changed and the new segment are rows; the two unchanged ones are counted.
        expect(await de.locator('tbody tr').count()).toBe(2);
        expect(await de.innerText()).toContain('2 unchanged segments not shown');
        const changed = de.locator('tbody tr.changed');
        expect(await changed.locator('td.source del').innerText()).toBe('noon');
        expect(await changed.locator('td.source ins').innerText()).toBe('three');
        expect(await changed.locator('td.previous del').count()).toBeGreaterThan(0);
        expect(await changed.locator('td.new ins').count()).toBeGreaterThan(0);
        expect(await changed.locator('td.previous ins').count()).toBe(0);
        expect(await changed.locator('td.new del').count()).toBe(0);
        const added = de.locator('tbody tr.added');
        expect(await added.locator('td.source').innerText()).toBe('A new line.');
        expect(await added.locator('td.previous').innerText()).toBe('none');
        // A deletion is drawn struck through, an insertion highlighted: the marks are visible.
        // Run in the page (this project's types have no DOM): plain JavaScript.
        const style = await page.evaluate(
          `getComputedStyle(document.querySelector('article.doc[data-language="de"] tr.changed td.source del')).textDecorationLine`,
        );
        expect(style).toContain('line-through');
        await page.screenshot({ path: path.join(SCREENSHOTS, 'review.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
  );

  it('--json: the same comparison for scripts; a document whose output did not change is not listed', async () => {
    fx = await changedInGit();
    git(fx, 'add', '-A');
    git(fx, 'commit', '-qm', 'second translation');
    const none = await runCliOn(fx, 'review', '--since', 'HEAD', '--json');
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout).sections[0].documents).toEqual([]);
    const r = await runCliOn(fx, 'review', '--since', 'HEAD~1', '--json');
    const docs = JSON.parse(r.stdout).sections[0].documents;
    expect(docs.map((d: { output: string }) => d.output)).toEqual(['out/de/guide.txt', 'out/fr/guide.txt']);
    expect(docs[0]).toMatchObject({ source: 'src/guide.txt', language: 'de', state: 'changed' });
    expect(docs[0].comparison.unchanged).toBe(2);
    expect(docs[0].comparison.rows.map((x: { kind: string }) => x.kind)).toEqual(['changed', 'added']);
  });

  it('--since a run: what the run replaced, kept in the state folder; a conflict names the file beside the edit', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'Hello world.\nThe door opens at noon.\n' } });
    await fx.sync();
    const first = fx.read('out/fr/guide.txt');
    fx.write('out/de/guide.txt', 'Von einer Person korrigiert.\nDie Tür öffnet mittags.\n');
    fx.write('src/guide.txt', 'Hello world.\nThe door opens at three.\n');
    await fx.sync();

    const r = await runCliOn(fx, 'review', '--json');
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.since).toBe('run #2');
    const [section] = data.sections;
    expect(section.title).toMatch(/^Run #2: sync/);
    const byLang = Object.fromEntries(section.documents.map((d: { language: string }) => [d.language, d]));
    // fr: replaced; the previous translation is the one run 1 wrote (kept), the new one the file now.
    expect(byLang.fr).toMatchObject({ state: 'changed', new_translation: 'out/fr/guide.txt' });
    expect(byLang.fr.comparison.rows[0]).toMatchObject({ next_by: 'machine' });
    expect(byLang.fr.comparison.rows).toHaveLength(1);
    expect(byLang.fr.comparison.rows[0].previous.map((p: { text: string }) => p.text).join('')).toBe(
      first.split('\n')[1],
    );
    // de: edited by a person, the new translation beside it: compared with the person's version.
    expect(byLang.de).toMatchObject({ state: 'conflict', new_translation: 'out/de/guide.locsync-new.txt' });
    expect(byLang.de.notes.join(' ')).toContain('locsync outputs keep|take-new out/de/guide.txt');
    expect(byLang.de.comparison.rows[0].previous.map((p: { text: string }) => p.text).join('')).toBe(
      'Von einer Person korrigiert.',
    );
    // The version the person kept is theirs, the new translation beside it the machine's.
    expect(byLang.de.comparison.rows[0]).toMatchObject({ previous_by: 'person', next_by: 'machine' });

    const unknown = await runCliOn(fx, 'review', '--since', 'no-such-ref');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not a run number nor a git commit');
  });
});
