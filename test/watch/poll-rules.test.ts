import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { listSourceFiles } from '../../src/sync/plan/list-sources.js';
import { NUMBERS_PER_FILE, walkSourceFolders } from '../../src/sync/plan/walk-folders.js';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// Poll mode walks the source folder a folder at a time; it must take exactly the files the sync
// takes (include, exclude, default ignores, dot folders, unsupported files, symbolic links), and
// find one edit among many unchanged folders.

let w: WatchFixture | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await w?.close();
  w = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('poll mode and the sync take the same files', () => {
  it('lists what the sync lists, pattern by pattern, links included', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-poll-rules-'));
    dirs.push(base);
    const root = path.join(base, 'src');
    const write = (rel: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), rel);
    };
    for (const rel of [
      'a.txt',
      'b.docx',
      'c.xyz',
      'noext',
      '.hidden.txt',
      '.dot/x.txt',
      'sub/d.txt',
      'sub/~$lock.docx',
      'sub/x.tmp',
      'build.tmp/inside.txt',
      'drafts/e.txt',
      'x/drafts/f.txt',
      'x/drafts2/g.txt',
      'x/y/z.pdf',
      'old/h.txt',
      'keep/old/i.txt',
      'sub/k.bak.txt',
      'secret.txt',
      'deep/secret.txt/m.txt',
      'Thumbs.db',
      'a b/c d.txt',
    ])
      write(rel);
    fs.mkdirSync(path.join(base, 'outside/dir'), { recursive: true });
    fs.writeFileSync(path.join(base, 'outside/o.txt'), 'o');
    fs.writeFileSync(path.join(base, 'outside/dir/p.txt'), 'p');
    const link = (target: string, rel: string) => fs.symlinkSync(target, path.join(root, rel));
    link('sub/d.txt', 'linkfile.txt');
    link('x', 'linkdir'); // a folder reached twice: by its name and through the link
    link('.', 'loop');
    link(path.join(base, 'outside/o.txt'), 'outside.txt');
    link(path.join(base, 'outside/dir'), 'outdir');
    link('nonexistent', 'dangling.txt');

    const cases: Array<[string[], string[], { followLinksOutside?: boolean }]> = [
      [[], [], {}],
      [[], ['**/drafts', 'old/**', '**/*.bak.txt', 'secret.txt', '{deep,keep}/**'], {}],
      [['**/*.txt'], ['sub/**'], {}],
      [['x/**', 'linkdir/**'], ['**/drafts2/**'], {}],
      [[], ['*.txt', 'x', 'linkdir'], {}],
      [['**/*.{txt,pdf}'], ['**/d.*', '**/drafts*'], { followLinksOutside: true }],
    ];
    for (const [include, ignore, opts] of cases) {
      const synced = await listSourceFiles(root, include, ignore, opts);
      const polled: string[] = [];
      const problems = await walkSourceFolders(root, include, ignore, opts, (folder, files) =>
        files.names.forEach((name, k) =>
          polled.push(`${folder === '' ? '' : `${folder}/`}${name} ${files.stats[NUMBERS_PER_FILE * k]}`),
        ),
      );
      const what = JSON.stringify({ include, ignore, opts });
      expect(polled.sort(), what).toEqual(synced.files.map((f) => `${f.relPath} ${f.size}`).sort());
      expect(problems.map((p) => `${p.relPath} ${p.reason}`).sort(), what).toEqual(
        synced.problems.map((p) => `${p.relPath} ${p.reason}`).sort(),
      );
    }
  });

  it('picks up an edit in one folder among many, and no edit of a file the sync leaves out', async () => {
    const files: Record<string, string> = {
      'drafts/d.txt': 'An excluded draft.\n',
      'f03/x.bak.txt': 'An excluded backup.\n',
      'f04/~$lock.txt': 'An editor lock file.\n',
      '.hidden/h.txt': 'In a dot folder.\n',
      'build.tmp/t.txt': 'In a temp folder.\n',
      'f05/page.html': '<p>Not included.</p>\n',
    };
    for (let i = 0; i < 25; i++) {
      const f = `f${String(i).padStart(2, '0')}`;
      files[`${f}/a.txt`] = `Folder ${i}, first file.\n`;
      files[`${f}/b.txt`] = `Folder ${i}, second file.\n`;
    }
    w = await startWatchFixture({
      files,
      manifest: () => ({
        watch: { poll: true, interval: 0.1 },
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{path}',
            include: ['**/*.txt'],
            exclude: ['drafts/**', '**/*.bak.txt'],
            targets: [{ lang: 'de' }, { lang: 'fr' }],
          },
        ],
      }),
    });
    const { fx, runner } = w;
    await waitFor('the initial scan translated', () => fx.exists('out/fr/f24/b.txt'));
    await runner.settle();
    expect(fx.exists('out/de/drafts/d.txt') || fx.exists('out/de/f05/page.html')).toBe(false);

    const mark = fx.mark();
    for (const rel of Object.keys(files).filter((r) => !/^f\d\d\/[ab]\.txt$/.test(r)))
      fs.writeFileSync(path.join(fx.src, rel), `${files[rel]} Edited.\n`);
    const before = ['de', 'fr'].map((l) => fx.read(`out/${l}/f17/a.txt`));
    fs.writeFileSync(path.join(fx.src, 'f17/a.txt'), 'Folder 17, first file, edited.\n');
    await waitFor('the edit translated', () =>
      ['de', 'fr'].every((l, i) => fx.read(`out/${l}/f17/a.txt`) !== before[i]),
    );
    // Several more polls and stability windows: nothing else is picked up.
    await sleep(1500);
    await runner.settle();
    expect(fx.uploads(mark).map((u) => u.filename)).toEqual(['a.txt', 'a.txt']);
  });
});
