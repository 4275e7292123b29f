import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSummary, type SyncSummary } from '../../src/sync/summary.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// One ledger of what the service billed: the run's summary, `report` in every grouping, the HTML
// report and `status` (the month, which the monthly budget counts) say the characters the local
// service's own usage counter (GET /v2/usage) counted, on a day with quarantined outputs (billed,
// not delivered), a download cut short and bought again, an upload whose answer was lost, and text
// requests of the segment path.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const UPLOAD = { method: 'POST', path: '/v2/document' };
const DOWNLOAD = { method: 'POST', path: '/v2/document/' };

/** What the service counted: /v2/usage answers character_count when a limit is set. */
async function usage(f: Fixture): Promise<number> {
  const res = await fetch(`${f.service.url}/v2/usage`, {
    headers: { authorization: `DeepL-Auth-Key test-key-for-sync-0001` },
  });
  return ((await res.json()) as { character_count: number }).character_count;
}

async function json<T>(f: Fixture, ...args: string[]): Promise<T> {
  const r = await runCliOn(f, ...args);
  expect(r.code, r.stderr).toBeLessThan(2);
  return JSON.parse(r.stdout) as T;
}

type Report = { total: { billed_characters: number }; rows: Array<{ billed_characters: number }> };

describe('the ledger agrees with the service', () => {
  it('summary, report (every grouping, HTML), status and the month say what /v2/usage counted', async () => {
    const lines = (what: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${what} line ${i}: a sentence to translate.`).join('\n') + '\n';
    fx = await createFixture({
      service: {
        characterLimit: 100_000_000,
        faults: [
          // z.html comes back untranslated (also when it meets the other faults first): quarantined,
          // billed all the same.
          { badOutput: 'untranslated', badOutputFor: '.html', badOutputs: 2 },
          // The first upload's answer is lost after the service took it: billed, uploaded again.
          { match: UPLOAD, drop: 1, dropAfterBody: true },
          // The first download is cut short: that translation is spent, bought again.
          { match: DOWNLOAD, cutDownloads: 1, cutAfterBytes: 20 },
        ],
      },
      manifest: {
        mappings: [
          { name: 'docs', source: 'src/docs', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] },
          {
            name: 'strings',
            source: 'src/strings',
            source_lang: 'en',
            method: 'segments',
            output: 'out/strings/{lang}/{path}',
            targets: [{ lang: 'de' }, { lang: 'fr' }],
          },
        ],
      },
      files: {
        'docs/b.txt': lines('b', 30),
        'docs/c.txt': lines('c', 50),
        'docs/z.html': `<html><body>${lines('a', 20)
          .split('\n')
          .map((l) => `<p>${l}</p>`)
          .join('')}</body></html>\n`,
        'strings/en.json': JSON.stringify(
          Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, `Message number ${i}.`])),
        ),
      },
    });
    // One upload at a time: the faults meet the documents in path order.
    const summary: SyncSummary = await fx.sync({ edit: (l) => void (l.manifest.service.concurrency = 1) });
    const counted = await usage(fx);
    expect(counted).toBeGreaterThan(0);
    // The day's faults all happened: one quarantine, one lost download, one lost answer.
    expect(summary.failed.map((f) => f.kind)).toEqual(['qa-failed']);
    expect(summary.lostDownloads).toHaveLength(1);
    expect(summary.unconfirmedUploads).toHaveLength(1);

    expect(summary.billedCharacters).toBe(counted);
    // Each billed call counted once, in its own unit: text requests are not uploads.
    const translated = fx.service.requests().filter((r) => r.path === '/v2/translate' && r.text);
    expect(summary.textRequests).toBe(translated.length);
    expect(summary.uploads).toBeLessThanOrEqual(fx.uploads().length);
    const text = formatSummary(summary);
    expect(text).toContain(`Billed: ${counted.toLocaleString('en-US')} characters for `);
    // Units named: the segment path's requests are text requests, not uploads; the upload bought
    // again and the one whose answer was lost named apart.
    expect(text).toMatch(
      /for \d+ documents: \d+ uploads \(1 again after a lost download: billed twice\), 1 unconfirmed upload \(possibly billed\) and \d+ text requests, in /,
    );
    expect(text).toMatch(/lost download: .*billed twice/);

    for (const by of ['language', 'mapping', 'month']) {
      const r = await json<Report>(fx, 'report', '--by', by, '--json');
      expect(r.total.billed_characters, `report --by ${by}`).toBe(counted);
      expect(r.rows.reduce((n, row) => n + row.billed_characters, 0)).toBe(counted);
    }
    const html = path.join(fx.dir, 'report.html');
    await runCliOn(fx, 'report', '--format', 'html', '-o', html);
    expect(fs.readFileSync(html, 'utf8')).toContain(counted.toLocaleString('en-US'));

    // The download cut short was bought again: billed twice, for sure; the lost answer possibly.
    const table = (await runCliOn(fx, 'report')).stdout;
    expect(table).toMatch(/^Billed twice \(1 document, [\d,]+ characters on top\)/m);
    expect(table).toMatch(/^Possibly billed twice \(1 document/m);
    const status = await json<{ spending: { billed_characters: number } }>(fx, 'status', '--json');
    expect(status.spending.billed_characters).toBe(counted);
  }, 180_000);

  it('a resumed run bills the documents an earlier run uploaded, and says so', async () => {
    fx = await createFixture({
      service: { characterLimit: 100_000_000 },
      files: Object.fromEntries(
        Array.from({ length: 4 }, (_, i) => [`f${i}.txt`, `Document ${i}, one sentence of it.\n`]),
      ),
    });
    // Stopped as soon as two uploads are answered, before anything is downloaded.
    const events = createSyncEvents();
    const abort = new AbortController();
    let uploaded = 0;
    events.on('job:uploaded', () => {
      if (++uploaded >= 2) abort.abort();
    });
    const first = await fx.sync({
      events,
      signal: abort.signal,
      stopDeadlineMs: 0,
      poll: { initialMs: 2000, minMs: 2000, maxMs: 2000 },
    });
    expect(first.interrupted).toBe(true);
    const second = await fx.sync();
    expect(second.resumed).toBeGreaterThan(0);
    expect(first.billedCharacters + second.billedCharacters).toBe(await usage(fx));
    const text = formatSummary(second);
    expect(text).not.toMatch(/for 0 uploads/);
    expect(text).toMatch(new RegExp(`${second.resumed} documents uploaded by an earlier run`));
  });
});
