import { afterEach, describe, expect, it } from 'vitest';
import { openRunState } from '../../src/cli/open-state.js';
import { silentLogger } from '../../src/log/logger.js';
import { formatLanguageProgress } from '../../src/report/language-progress.js';
import { qaOutputs } from '../../src/report/qa-outputs.js';
import { collectStatus, scanForStatus } from '../../src/report/status-data.js';
import { sample } from '../helpers/samples.js';
import { createFixture, type Fixture } from './fixture.js';

// Progress per language (status, status --json, the status page) counts the outputs the output
// checks failed and flagged apart, and never calls a language 100% done while one of them failed.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('progress per language with the output checks', () => {
  it('counts a failed output as failed and a flagged one as flagged, not as up to date', async () => {
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
    fx.write('more/notes.txt', sample('readme.txt'));
    const summary = await fx.sync();
    expect(summary.failed.map((f) => f.kind)).toEqual(['qa-failed']);
    expect(summary.flagged).toHaveLength(1);

    const loaded = await fx.load();
    const opened = await openRunState(loaded, { logger: silentLogger(), command: 'status', drives: false });
    try {
      const data = await collectStatus(opened.status, loaded, {
        runs: 5,
        config: 'pipeline.yaml',
        now: Date.now(),
        scan: await scanForStatus(loaded, opened.state),
        qa: await qaOutputs(opened.state.qaResults),
      });
      expect(data.progress).toEqual([
        {
          mapping: 'docs',
          target: 'de',
          outputs: 2,
          upToDate: 1,
          flagged: 0,
          stale: 0,
          pending: 0,
          failed: 1,
          percent: 50,
        },
        {
          mapping: 'lenient',
          target: 'de',
          outputs: 2,
          upToDate: 1,
          flagged: 1,
          stale: 0,
          pending: 0,
          failed: 0,
          percent: 100,
        },
      ]);
      expect(formatLanguageProgress(data.progress!)).toEqual([
        '  mapping  language  outputs  up to date  flagged  stale  pending  failed  done',
        '  docs     de              2           1        0      0        0       1   50%',
        '  lenient  de              2           1        1      0        0       0  100%',
      ]);
    } finally {
      await opened.close();
    }
  });
});
