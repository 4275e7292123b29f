import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/review/compare.js';
import { wordDiff } from '../../src/review/diff.js';
import { keepReplaced, keptRuns, KEPT_RUNS } from '../../src/sync/run/replaced-outputs.js';

// The review page's comparison: which segment became which, and which words changed.

const lines = (...texts: string[]) =>
  texts.map((text, i) => ({ text, pieces: [{ text }], where: `line ${i + 1}` }));

describe('review comparison', () => {
  it('a paragraph inserted does not shift the rows after it: only it is shown', () => {
    const c = compareVersions({
      oldSource: lines('One.', 'Two.', 'Three.'),
      oldOutput: lines('Eins.', 'Zwei.', 'Drei.'),
      newSource: lines('One.', 'New.', 'Two.', 'Three.'),
      newOutput: lines('Eins.', 'Neu.', 'Zwei.', 'Drei.'),
    });
    expect(c.unchanged).toBe(3);
    expect(c.rows).toEqual([
      {
        kind: 'added',
        where: 'line 2',
        source: [{ kind: 'same', text: 'New.' }],
        previous: null,
        next: [{ kind: 'ins', text: 'Neu.' }],
      },
    ]);
  });

  it('marks changed words, also in Japanese (no spaces between words)', () => {
    expect(wordDiff('The door opens at noon.', 'The door opens at three.')).toEqual([
      { kind: 'same', text: 'The door opens at ' },
      { kind: 'del', text: 'noon' },
      { kind: 'ins', text: 'three' },
      { kind: 'same', text: '.' },
    ]);
    const ja = wordDiff('ドアは正午に開きます。', 'ドアは三時に開きます。');
    expect(
      ja
        .filter((p) => p.kind === 'same')
        .map((p) => p.text)
        .join(''),
    ).toContain('開きます');
    expect(ja.some((p) => p.kind === 'del')).toBe(true);
  });

  it('without the previous source, segments are matched by their translation', () => {
    const c = compareVersions({
      oldSource: null,
      oldOutput: lines('Eins.', 'Zwei.'),
      newSource: lines('One.', 'Two, changed.'),
      newOutput: lines('Eins.', 'Zwei, geändert.'),
    });
    expect(c.unchanged).toBe(1);
    expect(c.rows.map((r) => [r.kind, r.source])).toEqual([
      ['changed', [{ kind: 'same', text: 'Two, changed.' }]],
    ]);
  });

  it(`keeps what the newest ${KEPT_RUNS} runs replaced, no more`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-kept-'));
    try {
      const output = path.join(dir, 'out.txt');
      const source = path.join(dir, 'src.txt');
      fs.writeFileSync(output, 'before');
      fs.writeFileSync(source, 'source');
      for (let run = 1; run <= KEPT_RUNS + 2; run++)
        await keepReplaced(
          {
            dir: path.join(dir, 'review'),
            runId: run,
            outputRel: 'out.txt',
            target: 'de',
            base: dir,
            sourceAbs: source,
          },
          output,
          output,
          false,
        );
      expect(keptRuns(path.join(dir, 'review'))).toEqual([7, 6, 5, 4, 3]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
