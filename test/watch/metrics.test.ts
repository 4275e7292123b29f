import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('locsync watch: /healthz and /metrics', () => {
  it('counts uploads and billed characters, and reports a used-up quota as unhealthy', async () => {
    w = await startWatchFixture({ manifest: () => ({ watch: { metrics: { host: '127.0.0.1', port: 0 } } }) });
    const { fx, runner } = w;
    const url = runner.metricsUrl!;
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const first = await fetch(`${url}/healthz`);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ ok: true, last_successful_poll: null, queue_depth: 0 });

    fx.write('src/m.txt', 'Counted in the metrics.\n');
    await waitFor('outputs', () => fx.exists('out/de/m.txt') && fx.exists('out/fr/m.txt'));
    await runner.settle();
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/^locsync_uploads_total 2$/m);
    expect(text).toMatch(/^locsync_jobs_total\{status="done"\} 2$/m);
    // Billed characters by mapping and target language.
    for (const lang of ['de', 'fr']) {
      const re = new RegExp(
        `^locsync_billed_characters_total\\{mapping="docs",lang="${lang}"\\} (\\d+)$`,
        'm',
      );
      expect(Number(re.exec(text)?.[1])).toBeGreaterThan(0);
    }
    const healthy = (await (await fetch(`${url}/healthz`)).json()) as { last_successful_poll: string | null };
    expect(healthy.last_successful_poll).not.toBeNull();

    fx.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, status: 456, count: 1 });
    fx.write('src/q.txt', 'Over the quota.\n');
    await waitFor('quota error counted', () => runner.metrics.healthz().ok === false);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { problem: string }).problem).toMatch(/quota/);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^locsync_errors_total\{kind="quota"\} 1$/m);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  });

  it('a monthly budget reached while watching stops uploads and /healthz says so', async () => {
    w = await startWatchFixture({
      manifest: () => ({
        budget: { per_month: 50 },
        watch: { metrics: { host: '127.0.0.1', port: 0 } },
      }),
    });
    const { fx, runner } = w;
    // 24 characters to each of two languages: 48 of the 50.
    fx.write('src/m.txt', 'Counted in the metrics.\n');
    await waitFor('outputs', () => fx.exists('out/de/m.txt') && fx.exists('out/fr/m.txt'));
    await runner.settle();
    expect(runner.metrics.healthz().ok).toBe(true);

    fx.write('src/q.txt', 'Over the budget.\n');
    await waitFor('uploads stopped', () => runner.metrics.healthz().ok === false);
    await runner.settle();
    const res = await fetch(`${runner.metricsUrl!}/healthz`);
    expect(res.status).toBe(503);
    const problem = ((await res.json()) as { problem: string }).problem;
    const said =
      /budget reached during the run: this month has (\d+) characters billed or in flight; the next upload \(about \d+\) would go over budget\.per_month \(50\)/.exec(
        problem,
      );
    // What it says the month billed is what the service billed for m.txt.
    const metrics = await (await fetch(`${runner.metricsUrl!}/metrics`)).text();
    const billed = [...metrics.matchAll(/^locsync_billed_characters_total\{[^}]*\} (\d+)$/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(Number(said?.[1])).toBe(billed);
    expect(fx.exists('out/de/q.txt') || fx.exists('out/fr/q.txt')).toBe(false);
    expect(metrics).toMatch(/^locsync_uploads_total 2$/m);
  });

  it('a key refused while watching: watch stays up and degraded; the next rescan with the key accepted goes on', async () => {
    w = await startWatchFixture({ manifest: () => ({ watch: { metrics: { host: '127.0.0.1', port: 0 } } }) });
    const { fx, runner } = w;
    fx.write('src/a.txt', 'Before the key was revoked.\n');
    await waitFor('outputs', () => fx.exists('out/de/a.txt') && fx.exists('out/fr/a.txt'));
    await runner.settle();

    // The key is refused from now on (revoked, rotated on the account).
    fx.service.addFaults({ match: { path: '/v2/document' }, status: 403, count: 1_000_000 });
    fx.write('src/b.txt', 'After the key was revoked.\n');
    await waitFor('degraded', () => runner.metrics.healthz().ok === false);
    const res = await fetch(`${runner.metricsUrl!}/healthz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { problem: string }).problem).toMatch(/refused the API key/);
    // Still watching: the process serves its health and takes edits.
    expect((await fetch(`${runner.metricsUrl!}/metrics`)).status).toBe(200);
    expect(fx.exists('out/de/b.txt')).toBe(false);

    // The key works again; the next rescan (here: a manifest edit) translates what waited.
    fx.service.clearFaults();
    const manifest = parse(fs.readFileSync(fx.manifestPath, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(fx.manifestPath, stringify({ ...manifest, max_attempts: 5 }));
    await waitFor(
      'translated after the rescan',
      () => fx.exists('out/de/b.txt') && fx.exists('out/fr/b.txt'),
    );
    await runner.settle();
    expect(runner.metrics.healthz().ok).toBe(true);
  });
});
