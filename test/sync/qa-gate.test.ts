import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDocument } from '../../src/documents/index.js';
import { quarantineDirOf } from '../../src/qa/quarantine.js';
import type { FaultSpec } from '../../src/service/types.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, failedUnits, uploadedUnits, type Fixture } from './fixture.js';

// The hard output checks (docs/qa.md): a service that answers with a truncated docx, an untranslated
// copy or a document that lost most of its segments has that output kept in the quarantine, the
// job failed with the reason, the good documents of the run delivered, and nothing uploaded again.

const sample = (rel: string) => fs.readFileSync(path.join(import.meta.dirname, '../../samples', rel));

const BAD: FaultSpec[] = [
  { badOutput: 'truncated', badOutputFor: '.docx', badOutputs: 1 },
  { badOutput: 'untranslated', badOutputFor: '.html', badOutputs: 1 },
  { badOutput: 'dropped-segments', badOutputFor: '.srt', badOutputs: 1 },
];

const status = (f: Fixture, ...args: string[]) =>
  runCli(['status', ...args, '-c', f.manifestPath], {
    env: { LOCSYNC_TEST_SYNC_KEY: API_KEY },
    cwd: f.dir,
    timeoutMs: 60_000,
  });

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('output checks before delivery', () => {
  it('keeps bad outputs out of the output folder, fails them with the reason, and does not upload them again', async () => {
    fx = await createFixture({
      service: { faults: BAD },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      files: {
        'report.docx': sample('office/report.docx'),
        'index.html': sample('web/index.html'),
        'welcome.srt': sample('video/welcome.srt'),
        'slides.pptx': sample('office/slides.pptx'),
        'notes.txt': sample('readme.txt'),
      },
    });
    const summary = await fx.sync();

    expect(failedUnits(summary)).toEqual(['index.html -> de', 'report.docx -> de', 'welcome.srt -> de']);
    const reason = (file: string) => summary.failed.find((f) => f.file === file)!;
    for (const f of summary.failed) {
      expect(f.kind).toBe('qa-failed');
      expect(f.willRetry).toBe(false);
    }
    expect(reason('report.docx').error).toMatch(/\(unreadable\): the output does not open as \.docx/);
    expect(reason('index.html').error).toMatch(/\(untranslated\): the output is the source unchanged/);
    expect(reason('welcome.srt').error).toMatch(
      /\(lost-segments\): the output has \d+ of the source's \d+ segments: lost from segment \d+ \(cue/,
    );

    // The truncated docx never reaches the output folder; it is kept in the quarantine.
    expect(fx.exists('out/de/report.docx')).toBe(false);
    expect(fx.exists('out/de/index.html')).toBe(false);
    expect(fx.exists('out/de/welcome.srt')).toBe(false);
    const quarantine = quarantineDirOf((await fx.load()).statePath);
    const kept = path.join(quarantine, 'out/de/report.docx');
    expect(fs.statSync(kept).size).toBeGreaterThan(0);
    await expect(openDocument(kept, { format: 'docx' })).rejects.toThrow();
    expect(reason('report.docx').error).toContain(kept);
    // No part file left beside the outputs.
    expect(fs.readdirSync(path.join(fx.dir, 'out/de')).sort()).toEqual(['notes.txt', 'slides.pptx']);

    // The good documents of the same run are delivered.
    expect(fx.exists('out/de/slides.pptx')).toBe(true);
    expect(fx.read('out/de/notes.txt')).not.toBe(sample('readme.txt').toString('utf8'));

    // status names them and exits 1 while they are failed.
    const shown = await status(fx);
    expect(shown.code).toBe(1);
    for (const file of ['report.docx', 'index.html', 'welcome.srt'])
      expect(shown.stdout).toMatch(
        new RegExp(`docs/${file.replace('.', '\\.')} -> de: qa-failed: output check failed`),
      );
    expect(shown.stdout).toContain('--retry-failed-qa');
    const json = JSON.parse((await status(fx, '--json')).stdout) as {
      failures: Array<{ file: string; kind: string; message: string }>;
    };
    expect(json.failures.map((f) => `${f.file}:${f.kind}`).sort()).toEqual([
      'index.html:qa-failed',
      'report.docx:qa-failed',
      'welcome.srt:qa-failed',
    ]);

    // The next plain run does not buy them again (the faults are spent: it would get good ones).
    const mark = fx.mark();
    const again = await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual([]);
    // Still failed (the run and status say so), with the way out named.
    expect(failedUnits(again)).toEqual(failedUnits(summary));
    for (const f of again.failed) {
      expect(f.kind).toBe('qa-failed');
      expect(f.willRetry).toBe(false);
      expect(f.error).toContain('--retry-failed-qa');
    }

    // On request they are, and delivered.
    const retried = await fx.sync({ retryFailedQa: true });
    expect(uploadedUnits(fx, mark)).toEqual(['index.html:DE', 'report.docx:DE', 'welcome.srt:DE']);
    expect(retried.failed).toEqual([]);
    await openDocument(path.join(fx.dir, 'out/de/report.docx'), { format: 'docx' });
    expect(fx.exists('out/de/welcome.srt')).toBe(true);
    expect((await status(fx)).code).toBe(0);
  });

  it('keeps the previous output when the new translation is a copy of the source', async () => {
    fx = await createFixture({
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      files: { 'index.html': sample('web/index.html') },
    });
    await fx.sync();
    const before = fx.read('out/de/index.html');
    fx.service.addFaults({ badOutput: 'untranslated' });
    fx.write(
      'src/index.html',
      sample('web/index.html').toString('utf8').replace('</body>', '<p>One more paragraph.</p></body>'),
    );
    const summary = await fx.sync();
    expect(summary.failed.map((f) => f.kind)).toEqual(['qa-failed']);
    expect(fx.read('out/de/index.html')).toBe(before);
  });
});
