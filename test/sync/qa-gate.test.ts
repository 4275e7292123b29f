import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDocument } from '../../src/documents/index.js';
import { quarantineDirOf } from '../../src/qa/quarantine.js';
import { silentLogger } from '../../src/log/logger.js';
import { notifyRunEvents } from '../../src/notify/run-notifications.js';
import { WebhookNotifier } from '../../src/notify/webhook.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { openRunState } from '../../src/cli/open-state.js';
import { StatusPageCollector } from '../../src/web/status-data.js';
import { renderStatusFragment } from '../../src/web/status-page.js';
import type { FaultSpec } from '../../src/local-service/types.js';
import { sample, SAMPLE_FORMATS } from '../helpers/samples.js';
import { hookReceiver, type HookReceiver } from '../helpers/webhook-receiver.js';
import { createFixture, failedUnits, onPostgres, runCliOn, uploadedUnits, type Fixture } from './fixture.js';

// The hard output checks (docs/qa.md): a service that answers with a truncated docx, an untranslated
// copy or a document that lost most of its segments has that output kept in the quarantine, the
// job failed with the reason, the good documents of the run delivered, and nothing uploaded again.

const BAD: FaultSpec[] = [
  { badOutput: 'truncated', badOutputFor: '.docx', badOutputs: 1 },
  { badOutput: 'untranslated', badOutputFor: '.html', badOutputs: 1 },
  { badOutput: 'dropped-segments', badOutputFor: '.srt', badOutputs: 1 },
];

let fx: Fixture | undefined;
let hook: HookReceiver | undefined;
afterEach(async () => {
  await fx?.close();
  await hook?.close();
  fx = hook = undefined;
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
    const shown = await runCliOn(fx, 'status');
    expect(shown.code).toBe(1);
    for (const file of ['report.docx', 'index.html', 'welcome.srt'])
      expect(shown.stdout).toMatch(
        new RegExp(`docs/${file.replace('.', '\\.')} -> de: qa-failed: output check failed`),
      );
    expect(shown.stdout).toContain('--retry-failed-qa');
    const json = JSON.parse((await runCliOn(fx, 'status', '--json')).stdout) as {
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

    // The way out is priced before it is bought: the plan lists the three as translations (billed).
    expect((await fx.sync({ dryRun: true, retryFailedQa: true })).translated).toBe(3);
    const planned = JSON.parse((await runCliOn(fx, 'plan', '--retry-failed-qa', '--json')).stdout) as {
      plan: { actions: Array<{ kind: string; reason?: string; ref: { file: string } }> };
      price: unknown;
    };
    expect(
      planned.plan.actions
        .filter((a) => a.kind === 'translate')
        .map((a) => `${a.ref.file}:${a.reason}`)
        .sort(),
    ).toEqual(['index.html:retry', 'report.docx:retry', 'welcome.srt:retry']);
    expect(JSON.stringify(planned.price)).toMatch(/characters/);
    expect(uploadedUnits(fx, mark)).toEqual([]);

    // On request they are, and delivered.
    const retried = await fx.sync({ retryFailedQa: true });
    expect(uploadedUnits(fx, mark)).toEqual(['index.html:DE', 'report.docx:DE', 'welcome.srt:DE']);
    expect(retried.failed).toEqual([]);
    await openDocument(path.join(fx.dir, 'out/de/report.docx'), { format: 'docx' });
    expect(fx.exists('out/de/welcome.srt')).toBe(true);
    expect((await runCliOn(fx, 'status')).code).toBe(0);
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

// The soft output checks in a sync: a translation in the wrong language fails by default (not
// delivered) and is only flagged (delivered) where the mapping's qa.fail_on leaves the language out;
// both are recorded in the state, listed by status (which exits 1 while one is failed), counted by
// the summary, and the failure is posted as a qa-failed webhook message.
describe('soft output checks in a sync', () => {
  it('fails a wrong-language translation by default, flags it where qa.fail_on leaves language out; state, status, summary and webhook say so', async () => {
    fx = await createFixture({
      service: { faults: [{ badOutput: 'wrong-language', badOutputFor: '.docx', badOutputs: 2 }] },
      manifest: {
        mappings: [
          { name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] },
          {
            name: 'lenient',
            source: 'more',
            output: 'lenient/{lang}/{path}',
            targets: [{ lang: 'de' }],
            qa: { fail_on: [], ignore: ['numbers', 'urls', 'emails', 'length'] },
          },
        ],
      },
      files: { 'report.docx': sample('office/report.docx'), 'slides.pptx': sample('office/slides.pptx') },
    });
    fx.write('more/report.docx', sample('office/report.docx'));
    hook = await hookReceiver();
    const events = createSyncEvents();
    const notifier = new WebhookNotifier({
      url: hook.url,
      events: ['qa-failed'],
      pipeline: 'test',
      logger: silentLogger(),
    });
    notifyRunEvents(events, notifier, 'sync');
    const summary = await fx.sync({ events });
    await notifier.flush();

    // docs: failed with the reason, not delivered; the good document of the run is.
    expect(failedUnits(summary)).toEqual(['report.docx -> de']);
    expect(summary.failed[0]!.kind).toBe('qa-failed');
    expect(summary.failed[0]!.error).toMatch(
      /output check failed \(language\): de not detected: the document reads as es/,
    );
    expect(fx.exists('out/de/report.docx')).toBe(false);
    expect(fx.exists('out/de/slides.pptx')).toBe(true);
    // lenient: delivered and flagged; the summary counts and names it.
    expect(fx.exists('lenient/de/report.docx')).toBe(true);
    expect(summary.flagged).toEqual([
      {
        mapping: 'lenient',
        file: 'report.docx',
        target: 'de',
        findings: ['language: de not detected: the document reads as es (at the whole document)'],
      },
    ]);

    // One webhook message for this run's failed output.
    expect(hook.messages).toHaveLength(1);
    expect(hook.messages[0]).toMatchObject({
      event: 'qa-failed',
      details: {
        count: 1,
        outputs: [{ mapping: 'docs', file: 'report.docx', output: 'out/de/report.docx' }],
      },
    });

    // status lists both with the reason and where; exits 1 while one is failed.
    const shown = await runCliOn(fx, 'status', '--no-scan');
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(
      /Failed the output checks \(1;[^\n]*\n {2}out\/de\/report\.docx \(docs\/report\.docx -> de\)\n {4}language: de not detected/,
    );
    expect(shown.stdout).toMatch(
      /Flagged by the output checks \(1;[^\n]*\n {2}lenient\/de\/report\.docx \(lenient\/report\.docx -> de\)\n {4}language: de not detected/,
    );
    const json = JSON.parse((await runCliOn(fx, 'status', '--json', '--no-scan')).stdout) as {
      qa: {
        failed: Array<{ output: string }>;
        flagged: Array<{ output: string; findings: Array<{ check: string; where: string[] }> }>;
      };
    };
    expect(json.qa.failed.map((q) => q.output)).toEqual(['out/de/report.docx']);
    expect(json.qa.flagged).toMatchObject([
      { output: 'lenient/de/report.docx', findings: [{ check: 'language', where: ['the whole document'] }] },
    ]);

    // The status page and the HTML report show both, with the findings.
    const loaded = await fx.load();
    const opened = await openRunState(loaded, { logger: silentLogger(), command: 'status', drives: false });
    try {
      const page = renderStatusFragment(
        await new StatusPageCollector({
          state: opened.state,
          status: opened.status,
          manifest: () => loaded,
        }).collect(),
      );
      expect(page).toContain('<h2>Output checks (<span class="bad">1 failed</span>, 1 flagged)</h2>');
      expect(page).toContain('<tr class="qa-failed"><td><bdi>out/de/report.docx</bdi>');
      expect(page).toContain('<tr class="qa-flagged"><td><bdi>lenient/de/report.docx</bdi>');
    } finally {
      await opened.close();
    }
    const report = await runCliOn(fx, 'report', '--format', 'html', '--no-count');
    expect(report.stdout).toContain('<table id="qa">');
    expect(report.stdout).toContain(
      'language: de not detected: the document reads as es (at the whole document)',
    );

    // Nothing uploaded twice: the next run buys neither again; on request the failed one is, and passes.
    const mark = fx.mark();
    await fx.sync();
    expect(uploadedUnits(fx, mark)).toEqual([]);
    const retried = await fx.sync({ retryFailedQa: true });
    expect(uploadedUnits(fx, mark)).toEqual(['report.docx:DE']);
    expect(retried.failed).toEqual([]);
    const shownAfter = await runCliOn(fx, 'status', '--json', '--no-scan');
    const after = JSON.parse(shownAfter.stdout) as { qa: { failed: unknown[]; flagged: unknown[] } };
    expect(after.qa.failed).toEqual([]);
    expect(after.qa.flagged).toHaveLength(1);
    expect(shownAfter.code).toBe(0);
  });
});

// Every sample format, one run, two targets: one translation of each file comes back cut in half
// (the fault takes the first upload of that file name), the other intact. No cut file reaches the
// output folder, each fails with the reason its format gives, the intact ones are delivered, status
// names the cut ones and exits 1, and nothing is bought twice.

describe('a truncated translation of every format', () => {
  // The checks are the same on either backend (the other tests here record on both): SQLite only.
  it.skipIf(onPostgres)(
    'never reaches the output folder; the intact translations of the run are delivered',
    async () => {
      const names = SAMPLE_FORMATS.map((rel) => path.basename(rel));
      fx = await createFixture({
        service: {
          faults: names.map((name) => ({
            badOutput: 'truncated' as const,
            badOutputFor: name,
            badOutputs: 1,
          })),
        },
        manifest: {
          mappings: [
            {
              name: 'docs',
              source: 'src',
              output: 'out/{lang}/{path}',
              targets: [{ lang: 'de' }, { lang: 'fr' }],
            },
          ],
        },
        files: Object.fromEntries(SAMPLE_FORMATS.map((rel) => [path.basename(rel), sample(rel)])),
      });
      const summary = await fx.sync();
      expect(summary.failed.map((f) => f.file).sort()).toEqual([...names].sort());
      const outName = (n: string) => n.replace(/\.doc$/, '.docx');
      for (const f of summary.failed) {
        expect(f.kind).toBe('qa-failed');
        // A cut zip or XML does not open; a cut text file lost its end (or ends inside a character).
        const want = /\.(txt|srt|htm|html)$/.test(f.file)
          ? /\((lost-segments|unreadable)\)/
          : /\(unreadable\)/;
        expect(f.error, f.file).toMatch(want);
        // The cut one is not in the output folder; the other language's is, and opens.
        const other = f.target === 'de' ? 'fr' : 'de';
        expect(fx.exists(`out/${f.target}/${outName(f.file)}`), f.file).toBe(false);
        expect(fx.exists(`out/${other}/${outName(f.file)}`), f.file).toBe(true);
      }
      // No part file left beside the outputs. Each file's cut translation is the one of its first
      // accepted upload, whichever language that was: when it was German for every file, out/de
      // was never made (nothing left there either).
      for (const lang of ['de', 'fr']) {
        const folder = path.join(fx.dir, 'out', lang);
        for (const file of fs.existsSync(folder) ? fs.readdirSync(folder) : [])
          expect(names.map(outName)).toContain(file);
      }

      const shown = await runCliOn(fx, 'status', '--no-scan');
      expect(shown.code).toBe(1);
      for (const f of summary.failed)
        expect(shown.stdout).toContain(`docs/${f.file} -> ${f.target}: qa-failed: output check failed`);

      const mark = fx.mark();
      await fx.sync();
      expect(uploadedUnits(fx, mark)).toEqual([]);
    },
  );
});
