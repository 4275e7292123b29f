import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir, writeDocsManifest } from '../../bench/lib/tree.js';
import { loadManifest } from '../../src/manifest/load.js';
import { OutputGate, TOO_SHORT_TO_CHECK } from '../../src/qa/gate.js';
import { languageCheckStarted } from '../../src/qa/language-detector.js';

// The language check's model loads ahead of the first output's check (issue 51), but only for a run
// whose outputs may be long enough to be checked: a run after one short file changed loads nothing
// beside its upload (80 MB and 0.3 s of CPU on the other core, for a check that reads no output).

describe('the output gate told what is coming', () => {
  it('loads the language model ahead only for a source long enough to give a checked output', async () => {
    await withTempDir('gate-expect', async (dir) => {
      const loaded = await loadManifest(writeDocsManifest(dir, { key_env: 'LOCSYNC_TEST_GATE_KEY' }));
      const gate = new OutputGate(loaded, path.join(dir, 'quarantine'), undefined);
      gate.expect([
        { mapping: 'docs', sourceBytes: 34 },
        { mapping: 'docs', sourceBytes: TOO_SHORT_TO_CHECK - 1 },
      ]);
      // The preload is an import away: give it a turn to start if it were going to.
      await new Promise((r) => setTimeout(r, 50));
      expect(languageCheckStarted()).toBe(false);
      gate.expect([
        { mapping: 'docs', sourceBytes: 34 },
        { mapping: 'docs', sourceBytes: 4_000 },
      ]);
      await expect.poll(() => languageCheckStarted()).toBe(true);
    });
  });
});
