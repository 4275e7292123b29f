import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

type ManifestDoc = { mappings: Array<{ targets: Array<{ lang: string }> }>; max_attempts?: unknown };

describe('locsync watch: manifest edits', () => {
  it('applies a good edit live (a new target language) and reports a broken one without stopping', async () => {
    w = await startWatchFixture({ files: { 'a.txt': 'First document.\n' } });
    const { fx, runner } = w;
    await waitFor('initial outputs', () => fx.exists('out/de/a.txt') && fx.exists('out/fr/a.txt'));

    const doc = parse(fs.readFileSync(fx.manifestPath, 'utf8')) as ManifestDoc;
    doc.mappings[0]!.targets.push({ lang: 'it' });
    const applied = new Promise((resolve) => runner.once('manifest:applied', resolve));
    fs.writeFileSync(fx.manifestPath, stringify(doc));
    await expect(applied).resolves.toEqual({ mappings: ['docs'] });
    await waitFor('the new language', () => fx.exists('out/it/a.txt'));

    const good = fs.readFileSync(fx.manifestPath, 'utf8');
    const broken = good.replace(/^max_attempts: .*$/m, 'max_attempts: three');
    expect(broken).not.toBe(good);
    const line = broken.split('\n').findIndex((l) => l.startsWith('max_attempts')) + 1;
    const rejected = new Promise<{ errors: string[] }>((resolve) =>
      runner.once('manifest:rejected', resolve),
    );
    fs.writeFileSync(fx.manifestPath, broken);
    const { errors } = await rejected;
    expect(errors.join('\n')).toContain(`${fx.manifestPath}:${line}:`);

    // Still watching, with the last good manifest (three languages).
    fx.write('src/b.txt', 'Second document.\n');
    await waitFor('outputs of a file added after the broken edit', () =>
      ['de', 'fr', 'it'].every((l) => fx.exists(`out/${l}/b.txt`)),
    );
    expect(runner.manifest.manifest.mappings[0]!.targets.map((t) => t.lang)).toEqual(['de', 'fr', 'it']);
  });
});

describe('locsync watch: health after manifest edits', () => {
  it('a rejected edit turns /healthz non-200 with the reason, a good edit back to ok', async () => {
    w = await startWatchFixture({
      manifest: () => ({ watch: { metrics: { host: '127.0.0.1', port: 0 } } }),
    });
    const { fx, runner } = w;
    const url = runner.metricsUrl!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const good = fs.readFileSync(fx.manifestPath, 'utf8');
    // An unclosed quote: one syntax error, at its line.
    const broken = good.replace(/^(\s+)source: src$/m, '$1source: "src');
    expect(broken).not.toBe(good);
    const line = broken.split('\n').findIndex((l) => l.includes('"src')) + 1;
    const rejected = new Promise<{ errors: string[] }>((resolve) =>
      runner.once('manifest:rejected', resolve),
    );
    fs.writeFileSync(fx.manifestPath, broken);
    const { errors } = await rejected;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${fx.manifestPath}:${line}:`);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; problem: string; manifest_rejected: string };
    expect(body.status).toBe('degraded');
    expect(body.problem).toContain(`manifest edit rejected: ${fx.manifestPath}:${line}:`);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^locsync_manifest_rejected 1$/m);

    const applied = new Promise((resolve) => runner.once('manifest:applied', resolve));
    fs.writeFileSync(fx.manifestPath, good.replace('stability: 0.4', 'stability: 0.5'));
    await applied;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^locsync_manifest_rejected 0$/m);
  });
});

describe('locsync watch: watched folders follow the manifest', () => {
  it('a mapping added by an edit is scanned and its folder watched', async () => {
    w = await startWatchFixture();
    const { fx, runner } = w;
    fx.write('more/existing.txt', 'Already there before the edit.\n');
    const doc = parse(fs.readFileSync(fx.manifestPath, 'utf8')) as {
      mappings: Array<Record<string, unknown>>;
    };
    doc.mappings.push({
      name: 'more',
      source: 'more',
      output: 'more-out/{lang}/{path}',
      targets: [{ lang: 'es' }],
    });
    const applied = new Promise((resolve) => runner.once('manifest:applied', resolve));
    fs.writeFileSync(fx.manifestPath, stringify(doc));
    await expect(applied).resolves.toEqual({ mappings: ['more'] });
    await waitFor('the existing file of the new mapping', () => fx.exists('more-out/es/existing.txt'));
    fx.write('more/later.txt', 'Arrives in the new folder.\n');
    await waitFor('a file added to the new folder', () => fx.exists('more-out/es/later.txt'));
  });
});

describe('locsync watch: style list files', () => {
  it('applies an edited style list file: the list is updated, outputs become stale, nothing is re-billed', async () => {
    const list = (time: string) =>
      stringify({ language: 'de', configured_rules: { dates_and_times: { time_format: time } } });
    w = await startWatchFixture({
      files: { 'a.txt': 'At 3:00 PM.\n' },
      project: { 'styles/house.yaml': list('use_24_hour_clock') },
      manifest: () => ({
        style_lists: { house: { file: 'styles/house.yaml' } },
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{path}',
            targets: [{ lang: 'de', style: 'house' }],
          },
        ],
      }),
    });
    const { fx, runner } = w;
    await waitFor('output', () => fx.exists('out/de/a.txt'));
    await runner.settle();
    const before = w.state.getStyle('house')!;
    const mark = fx.mark();
    const stale: string[] = [];
    runner.events.on('job:stale', (e) => stale.push(e.file));
    const applied = new Promise((resolve) => runner.once('manifest:applied', resolve));
    fs.writeFileSync(path.join(fx.dir, 'styles/house.yaml'), list('use_12_hour_clock'));
    await applied;
    await runner.settle();
    const after = w.state.getStyle('house')!;
    expect(after.hash).not.toBe(before.hash);
    expect(stale).toEqual(['a.txt']);
    expect(fx.uploads(mark)).toEqual([]);
  });
});
