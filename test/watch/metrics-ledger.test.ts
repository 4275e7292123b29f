import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { folderMapping, runCliOn } from '../sync/fixture.js';
import { textRequests } from '../segments/helpers.js';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// The /metrics of a watch are read from the state's ledger, as `status --json` and `report` are:
// an upload whose answer was lost (possibly billed, and billed by the service) and the text
// requests of a segments mapping are in them. The local service's request log and /v2/usage are
// the oracles.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** The sum of a metric's samples (all labels) in a Prometheus text. */
function metricSum(text: string, name: string): number | undefined {
  const samples = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))];
  return samples.length ? samples.reduce((n, m) => n + Number(m[1]), 0) : undefined;
}

interface StatusJson {
  runs: Array<{
    command: string;
    status: string;
    billed_characters: number | null;
    counts: Record<string, number>;
  }>;
}

describe('watch /metrics from the ledger', () => {
  it('billed characters, uploads and text requests agree with status --json, report and the service', async () => {
    w = await startWatchFixture({
      manifest: () => ({
        watch: { metrics: { host: '127.0.0.1', port: 0 } },
        mappings: [folderMapping('docs', ['de', 'fr']), folderMapping('seg', ['de'], { method: 'segments' })],
      }),
    });
    const { fx, runner } = w;
    // The service takes one upload and bills it, its answer never arrives: uploaded again.
    fx.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, drop: 1, dropAfterBody: true });
    fx.write('src/docs/a.txt', 'The answer to one upload of this file is lost.\n');
    fx.write('src/seg/b.txt', 'Sent as text.\n\nIn requests of its own.\n');
    await waitFor(
      'every output',
      () => ['out/docs/de/a.txt', 'out/docs/fr/a.txt', 'out/seg/de/b.txt'].every((o) => fx.exists(o)),
      60_000,
    );
    // The jobs are recorded done (and their bills in the ledger) a moment after their outputs land.
    const usage = await fx.client().getUsage();
    const metricsUrl = `${runner.metricsUrl!}/metrics`;
    let metrics = '';
    for (let i = 0; i < 200; i++) {
      metrics = await (await fetch(metricsUrl)).text();
      if (metricSum(metrics, 'locsync_billed_characters_total') === usage.character_count) break;
      await sleep(100);
    }
    const uploads = fx.uploads().filter((u) => u.document_id);
    expect(uploads).toHaveLength(3);
    const billed = metricSum(metrics, 'locsync_billed_characters_total');
    // What the service counted, the lost answer's document included.
    expect(billed).toBe(usage.character_count);
    // Uploads answered (the lost one is in the billed characters, possibly billed), as the summary counts.
    expect(metricSum(metrics, 'locsync_uploads_total')).toBe(2);
    expect(metricSum(metrics, 'locsync_text_requests_total')).toBe(textRequests(fx).length);
    expect(textRequests(fx).length).toBeGreaterThan(0);

    const status = await runCliOn(fx, 'status', '--json', '--no-scan');
    // A watch ends its session when it is idle and opens the next one: its runs, ended and running,
    // add up to the metrics of the process.
    const runs = (JSON.parse(status.stdout) as StatusJson).runs.filter((r) => r.command === 'watch');
    const sum = (f: (r: StatusJson['runs'][number]) => number) => runs.reduce((n, r) => n + f(r), 0);
    expect(
      sum((r) => r.billed_characters ?? 0),
      status.stdout,
    ).toBe(billed);
    expect(
      sum((r) => r.counts.text_requests ?? 0),
      status.stdout,
    ).toBe(textRequests(fx).length);
    const report = await runCliOn(fx, 'report', '--json');
    expect(
      (JSON.parse(report.stdout) as { total: { billed_characters: number } }).total.billed_characters,
    ).toBe(billed);
  }, 120_000);
});
