import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import micromatch from 'micromatch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_IGNORES, isDefaultIgnored, listSourceFiles } from '../../src/sync/plan/list-sources.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-scan-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (rel: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), 'x');
};

describe('source scan', () => {
  it('ignores by name exactly what the default ignore globs match', () => {
    const names = [
      '~$report.docx',
      'a~$b.docx',
      '.~lock.report.docx#',
      '.~lock.report.docx',
      'draft.tmp',
      'draft.tmp.txt',
      'TMP.TMP',
      '.DS_Store',
      'Thumbs.db',
      'thumbs.db',
      'desktop.ini',
      'x.locsync-part',
      'x.locsync-part.txt',
      'guide.locsync-new.txt',
      'guide.locsync-new',
      'guide.locsync-edited.docx',
      'guide.locsync-edited-2.docx',
      'guide.locsync-newer.txt',
      'report.docx',
      'notes.txt',
    ];
    for (const name of names) {
      for (const rel of [name, `sub/dir/${name}`]) {
        expect(isDefaultIgnored(name), rel).toBe(micromatch.isMatch(rel, DEFAULT_IGNORES, { dot: true }));
      }
    }
  });

  it('skips ignored files and everything inside a folder with an ignored name', async () => {
    for (const rel of [
      'a.txt',
      'sub/b.txt',
      '~$a.docx',
      'sub/c.tmp',
      'build.tmp/inside.txt',
      'x/y.locsync-part',
    ])
      write(rel);
    const listed = await listSourceFiles(dir, [], []);
    expect(listed.files.map((f) => f.relPath)).toEqual(['a.txt', 'sub/b.txt']);
    expect(listed.files[1]?.absPath).toBe(path.join(dir, 'sub', 'b.txt'));
    expect(listed.problems).toEqual([]);
  });
});
