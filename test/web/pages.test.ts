import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_DOCUMENT_MESSAGE } from '../../src/local-service/faults.js';
import { EXIT } from '../../src/util/errors.js';
import { openBrowser, HAS_CHROMIUM, SCREENSHOTS, type Browser } from '../helpers/browser.js';
import { CLI_ARGS } from '../helpers/cli.js';
import {
  FAST_POLL_ENV,
  KEY_ENV,
  OPS_KEY,
  opsProject,
  smallDocx,
  type OpsProject,
} from '../cli/ops-fixture.js';

// The status page of `locsync watch` and the HTML billing report, in a real headless chromium:
// they load without console errors, show the runs and the charts, and the status page follows a
// job that finishes without being reloaded. The screenshots are those of docs/operations.md.

/** A file name with a right-to-left override (U+202E) in it, as someone trying to confuse a reader writes. */
const RLO_FILE = 'a\u202Eeman-txt.txt';

/**
 * Whether `text`, found in a text node under `selector`, is laid out left to right on the screen:
 * its first character left of its last (an override that leaks into it reverses that).
 */
function readsLeftToRight(page: Browser['page'], selector: string, text: string): Promise<boolean | null> {
  // Run in the page (this project's types have no DOM): plain JavaScript.
  return page.evaluate(`(() => {
    const root = document.querySelector(${JSON.stringify(selector)});
    const text = ${JSON.stringify(text)};
    if (!root) return null;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent.indexOf(text);
      if (at < 0) continue;
      const left = (i) => {
        const r = document.createRange();
        r.setStart(node, i);
        r.setEnd(node, i + 1);
        return r.getBoundingClientRect().left;
      };
      return left(at) < left(at + text.length - 1);
    }
    return null;
  })()`);
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!HAS_CHROMIUM)('web pages in a browser', () => {
  let p: OpsProject;
  let watch: ChildProcess;
  let stderr = '';
  let browser: Browser;
  let url = '';

  beforeAll(async () => {
    p = await opsProject({
      service: { faults: [{ errorDocuments: 1 }] },
      manifest: {
        max_attempts: 1,
        watch: { shutdown: 5, stability: 0.2, metrics: { host: '127.0.0.1', port: 0 } },
      },
    });
    // First in path order, so the one the service fails: a right-to-left override in its name.
    p.write(RLO_FILE, 'A name that reads backwards.\n');
    p.write('guide.txt', 'Open the door at 3 pm. Close it at 5 pm.\n');
    p.write('notes/readme.txt', 'A short note.\n');
    p.write('report.docx', await smallDocx('The quarterly report is short.'));
    // A run refused by a cap before watch starts: the page says how it ended and what to do.
    expect((await p.cli(['sync', '--max-billed', '1'])).code).toBe(EXIT.budget);
    watch = spawn(process.execPath, [...CLI_ARGS, 'watch', '-c', p.manifest], {
      cwd: p.dir,
      env: { ...process.env, ...FAST_POLL_ENV, [KEY_ENV]: OPS_KEY, CI: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    watch.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await until('the status page url in the log', () => /"url":"(http:[^"]+)"/.test(stderr));
    url = /"url":"(http:[^"]+)"/.exec(stderr)![1]!;
    browser = await openBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (watch && watch.exitCode === null) {
      const closed = new Promise((r) => watch.on('close', r));
      watch.kill('SIGTERM');
      await closed;
    }
    await p?.close();
  }, 60_000);

  it('the status page shows runs, jobs, failures with what to do, the billing chart and progress, and follows a job without reloading', async () => {
    const { page, errors } = browser;
    // Everything of the first scan done: 4 files x 2 languages, one failed on the service.
    const status = async () =>
      (await (await fetch(`${url}/status.json`)).json()) as {
        live: { totals: { downloaded: number; failed: number } };
        status: { progress: unknown[] | null };
      };
    await until('the first scan translated', async () => {
      const s = await status();
      return s.live.totals.downloaded + s.live.totals.failed === 8 && s.status.progress !== null;
    });
    await page.goto(`${url}/?refresh=300`);
    await expect.poll(() => page.locator('#runs tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#runs').textContent()).toContain('watch');
    expect(await page.locator('#runs').textContent()).toContain('failed (budget)');
    expect(await page.locator('#last-outcome').textContent()).toMatch(
      /\(sync\): failed \(budget\)\. What to do: a budget cap stopped the uploads/,
    );
    expect(await page.locator('#failures').textContent()).toContain(FAULT_DOCUMENT_MESSAGE);
    expect(await page.locator('#failures').textContent()).toMatch(
      /What to do: the service could not translate it/,
    );
    // The service echoed the failed document's key in its message: not on the page, not in the JSON.
    expect(await page.locator('#failures').textContent()).toContain('(document_key [REDACTED])');
    const shown = [await page.content(), await (await fetch(`${url}/status.json`)).text()].join('\n');
    for (const key of p.documentKeys()) expect(shown).not.toContain(key);
    // The override stays inside the file's name: the page's own words around it read left to right.
    const failed = page.locator('#failures tbody tr', { hasText: 'gave up' }).first();
    expect(await failed.locator('td').first().textContent()).toContain(RLO_FILE);
    expect(await readsLeftToRight(page, '#failures', '(gave up)')).toBe(true);
    expect(await readsLeftToRight(page, '#failures', 'What to do')).toBe(true);
    expect(await page.locator('svg.chart rect.bar').count()).toBeGreaterThan(0);
    expect(await page.locator('#progress tbody tr').count()).toBe(2);
    // Progress per language: the document the service failed (and gave up on) counts as failed,
    // and its language is not called 100% done.
    // Each row as [language, outputs, up to date, flagged, stale, pending, failed, done %].
    const progress = async () => {
      const rows: Array<[string, ...number[]]> = [];
      for (const tr of await page.locator('#progress tbody tr').all()) {
        const cells = (await tr.locator('td').allTextContents()).map((c) => c.trim());
        rows.push([cells[1]!, ...cells.slice(2).map((c) => Number(c.replace(/[,%]/g, '')))]);
      }
      return rows;
    };
    const rowOf = (rows: Array<[string, ...number[]]>, lang: string) =>
      rows.find((r) => r[0] === lang)?.slice(1);
    // (The table catches up with the last outputs of the first scan within a refresh or two.)
    const sorted = async () =>
      (await progress()).map((r) => r.slice(1) as number[]).sort((a, b) => a[1]! - b[1]!);
    await expect.poll(sorted, { timeout: 30_000 }).toEqual([
      [4, 3, 0, 0, 0, 1, 75],
      [4, 4, 0, 0, 0, 0, 100],
    ]);
    const failedLang = (await progress()).find((r) => r[6] === 1)![0];
    const otherLang = failedLang === 'de' ? 'fr' : 'de';
    const done = async () => Number((await page.locator('#done').textContent())!.replace(/,/g, ''));
    expect(await done()).toBe(7);
    const billedBefore = await page.locator('#billed-month').textContent();

    // A new document: the page follows its job to the end, in the same document (no reload).
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));
    p.write('added.txt', 'A document added while the page is open.\n');
    await expect.poll(done, { timeout: 60_000 }).toBe(9);
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);
    // The progress table follows the files that arrived and the outputs that landed.
    await expect
      .poll(async () => rowOf(await progress(), otherLang), { timeout: 30_000 })
      .toEqual([5, 5, 0, 0, 0, 0, 100]);
    expect(rowOf(await progress(), failedLang)).toEqual([5, 4, 0, 0, 0, 1, 80]);
    // The running watch's row bills what the month billed (the sync before it was refused): the
    // ledger's figure so far, on the page, in /status.json and in `locsync status --json`.
    const month = async () => Number((await page.locator('#billed-month').textContent())!.replace(/,/g, ''));
    const watchRow = page.locator('#runs tbody tr', { hasText: 'watch' }).first();
    const watchBilled = async () =>
      Number((await watchRow.locator('td.num').textContent())!.replace(/,/g, ''));
    await expect.poll(async () => (await watchBilled()) === (await month())).toBe(true);
    expect(await month()).toBeGreaterThan(0);
    const cliStatus = JSON.parse((await p.cli(['status', '--json', '--no-scan'])).stdout) as {
      runs: Array<{
        command: string;
        status: string;
        billed_characters: number;
        counts: Record<string, number>;
      }>;
      spending: { billed_characters: number };
    };
    const running = cliStatus.runs.find((r) => r.command === 'watch')!;
    expect(running.status).toBe('running');
    expect(running.billed_characters).toBe(cliStatus.spending.billed_characters);
    expect(running.counts.translated).toBe(9);
    expect(running.counts.failed).toBe(1);
    expect(await page.locator('#billed-month').textContent()).not.toBe(billedBefore);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'status-page.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 120_000);

  it('report --format html is a self-contained page with the month x language and minimum charts', async () => {
    const file = path.join(p.dir, 'report.html');
    const r = await p.cli(['report', '--format', 'html', '-o', file]);
    expect(r.code).toBe(0);
    const html = fs.readFileSync(file, 'utf8');
    // Nothing loaded from elsewhere.
    expect(html).not.toMatch(
      /<script[^>]+src=|<link[^>]+href="(?!data:)|https?:\/\/(?!www\.w3\.org\/2000\/svg)/,
    );
    const json = JSON.parse((await p.cli(['report', '--json'])).stdout) as {
      total: { billed_characters: number; minimum_billed_characters: number };
    };
    const { page, errors } = browser;
    await page.goto(pathToFileURL(file).href);
    expect(await page.locator('#total-billed').textContent()).toBe(
      json.total.billed_characters.toLocaleString('en-US'),
    );
    expect(await page.locator('svg.chart').count()).toBe(2);
    // Bars of both languages in the month chart, and the minimum-billed docx in the second.
    expect(await page.locator('svg.chart').first().locator('rect.bar').count()).toBe(2);
    // The minimum chart holds the minimum-billed documents alone: what they held and what was added.
    const minimumBars = await page.locator('svg.chart').nth(1).locator('rect.bar title').allTextContents();
    expect(minimumBars.some((t) => t.includes('added by the minimum'))).toBe(true);
    const charted = minimumBars.reduce(
      (n, t) => n + Number(/: ([\d,]+) characters/.exec(t)![1]!.replace(/,/g, '')),
      0,
    );
    expect(charted).toBe(json.total.minimum_billed_characters);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'report.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);
});
