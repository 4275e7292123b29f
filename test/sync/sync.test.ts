import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncEvents } from '../../src/sync/events.js';
import { ROOT } from '../helpers/cli.js';
import { createFixture, failedUnits, onPostgres, type Fixture } from './fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const TEXT = new Set(['.txt', '.html', '.htm', '.srt', '.xlf', '.xliff']);

/** Every supported sample, copied under src/ (the phrasebook and README stay out). */
function copySamples(f: Fixture): string[] {
  const samples = path.join(ROOT, 'samples');
  const copied: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else if (!/^(phrasebook\.|README)/.test(e.name)) {
        // report.doc and report.docx would both become report.docx (a collision, tested below)
        const rel = path
          .relative(samples, abs)
          .split(path.sep)
          .join('/')
          .replace(/\.doc$/, '-legacy.doc');
        f.write(`src/${rel}`, fs.readFileSync(abs));
        copied.push(rel);
      }
    }
  };
  walk(samples);
  return copied.sort();
}

describe('locsync sync engine', () => {
  it('translates a tree of samples into two targets, and a second run does nothing', async () => {
    fx = await createFixture({
      files: { 'notes/plain file.txt': 'Hello world.\n', 'ünïcode/größe.txt': 'Size.\n' },
    });
    const samples = copySamples(fx);
    const all = [...samples, 'notes/plain file.txt', 'ünïcode/größe.txt'];
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.translated).toBe(all.length * 2);
    expect(fx.uploads()).toHaveLength(all.length * 2);
    for (const rel of all) {
      for (const lang of ['de', 'fr']) {
        const out = `out/${lang}/${rel.replace(/\.doc$/, '.docx')}`;
        expect(fx.exists(out), out).toBe(true);
        if (TEXT.has(path.extname(rel))) expect(fx.read(out), out).not.toBe(fx.read(`src/${rel}`));
      }
    }
    expect(first.billedCharacters).toBeGreaterThan(0);

    const mark = fx.mark();
    const second = await fx.sync();
    expect(second.unchanged).toBe(all.length * 2);
    expect(second.translated + second.reused + second.failed.length).toBe(0);
    expect(second.hashed).toBe(0);
    expect(fx.documentRequests(mark)).toEqual([]);
  });

  it('re-translates a changed file and only it', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Alpha.\n', 'b.txt': 'Beta.\n', 'c/d.srt': '1\n00:00:01,000 --> 00:00:02,000\nHi\n' },
    });
    await fx.sync();
    const before = fx.read('out/de/a.txt');
    fx.write('src/a.txt', 'Alpha, changed.\n');
    const mark = fx.mark();
    const s = await fx.sync();
    expect(
      fx
        .uploads(mark)
        .map((u) => `${u.filename}:${u.target_lang}`)
        .sort(),
    ).toEqual(['a.txt:DE', 'a.txt:FR']);
    expect(s.translated).toBe(2);
    expect(s.unchanged).toBe(4);
    expect(fx.read('out/de/a.txt')).not.toBe(before);
  });

  it('reuses the output of identical content (copy, rename, duplicates in one run) without uploading', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Same words.\n', 'dup1.txt': 'Twin.\n', 'dup2.txt': 'Twin.\n' },
    });
    const first = await fx.sync();
    // dup2 has the same content as dup1 in the same run: translated once, copied once per target
    expect(first.translated).toBe(4);
    expect(first.reused).toBe(2);
    expect(fx.uploads().filter((u) => u.filename.startsWith('dup'))).toHaveLength(2);
    expect(fx.read('out/de/dup2.txt')).toBe(fx.read('out/de/dup1.txt'));

    fs.copyFileSync(path.join(fx.src, 'a.txt'), path.join(fx.src, 'copy of a.txt'));
    fs.mkdirSync(path.join(fx.src, 'moved'));
    fs.renameSync(path.join(fx.src, 'dup1.txt'), path.join(fx.src, 'moved', 'dup1.txt'));
    const mark = fx.mark();
    const s = await fx.sync();
    expect(fx.uploads(mark)).toEqual([]);
    expect(s.reused).toBe(4);
    expect(fx.read('out/fr/copy of a.txt')).toBe(fx.read('out/fr/a.txt'));
    expect(fx.read('out/de/moved/dup1.txt')).toBe(fx.read('out/de/dup2.txt'));
    // on_source_delete defaults to keep
    expect(fx.exists('out/de/dup1.txt')).toBe(true);
  });

  it('lists unsupported files and ignores editor lock and temp files, uploading none of them', async () => {
    fx = await createFixture({
      files: {
        'ok.txt': 'Fine.\n',
        'data.csv': 'a,b\n',
        '~$report.docx': 'lock',
        '.~lock.report.docx#': 'lock',
        'draft.tmp': 'x',
        '.DS_Store': 'x',
        'Thumbs.db': 'x',
      },
    });
    const s = await fx.sync();
    expect(s.files).toBe(1);
    expect(s.unsupported.map((u) => u.file)).toEqual(['data.csv']);
    expect(fx.uploads().map((u) => u.filename)).toEqual(['ok.txt', 'ok.txt']);
    expect(s.failed).toEqual([]);
  });

  it('reports a symlink loop and a broken link without failing the scan', async () => {
    fx = await createFixture({ files: { 'sub/a.txt': 'A.\n' } });
    fs.symlinkSync(fx.src, path.join(fx.src, 'sub', 'loop'));
    fs.symlinkSync(path.join(fx.dir, 'nowhere.txt'), path.join(fx.src, 'broken.txt'));
    const s = await fx.sync();
    expect(s.translated).toBe(2);
    expect(s.skipped.map((k) => `${k.file}:${k.reason}`).sort()).toEqual([
      'broken.txt:unreadable',
      'sub/loop:symlink-loop',
    ]);
  });

  it('detects two sources rendering to the same output and does not overwrite', async () => {
    fx = await createFixture({
      files: { 'x/name.txt': 'From x.\n', 'y/name.txt': 'From y.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{name}', targets: [{ lang: 'de' }] }],
      },
    });
    const s = await fx.sync();
    expect(failedUnits(s)).toEqual(['y/name.txt -> de']);
    expect(s.failed[0]?.kind).toBe('collision');
    expect(s.translated).toBe(1);
    expect(fx.uploads().map((u) => u.sha256)).toHaveLength(1);
  });

  it('never writes outside the output root (a mapping name with ..)', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n' } });
    const s = await fx.sync({
      // the manifest checks refuse such a name; the engine must hold on its own too
      edit: (l) => {
        const m = l.manifest.mappings[0]!;
        m.name = '../../escaped';
        m.output = 'out/{mapping}/{lang}/{path}';
      },
    });
    expect(s.failed.map((f) => f.kind)).toEqual(['path-escape', 'path-escape']);
    expect(fx.uploads()).toEqual([]);
    // (a PostgreSQL state keeps nothing beside the manifest until a download needs the spool)
    expect(fs.readdirSync(fx.dir).sort()).toEqual([
      ...(onPostgres ? [] : ['.locsync']),
      'pipeline.yaml',
      'src',
    ]);
  });

  it('on_source_delete: delete removes the outputs of deleted sources; keep leaves them', async () => {
    fx = await createFixture({
      files: { 'keep.txt': 'Keep.\n', 'gone/away.txt': 'Away.\n' },
      manifest: {
        on_source_delete: 'delete',
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{path}',
            targets: [{ lang: 'de' }, { lang: 'fr' }],
          },
        ],
      },
    });
    await fx.sync();
    expect(fx.exists('out/fr/gone/away.txt')).toBe(true);
    fs.rmSync(path.join(fx.src, 'gone'), { recursive: true });
    const s = await fx.sync();
    expect(s.deletedOutputs.sort()).toEqual(['out/de/gone/away.txt', 'out/fr/gone/away.txt']);
    expect(fx.exists('out/de/gone')).toBe(false);
    expect(fx.exists('out/de/keep.txt')).toBe(true);
    expect(s.removedSources).toBe(1);
  });

  it('on_source_delete: delete deletes nothing when the source folder is missing or empty (a share not mounted)', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'A.\n', 'b/c.txt': 'C.\n' },
      manifest: {
        on_source_delete: 'delete',
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    await fx.sync();
    fs.renameSync(fx.src, `${fx.src}.away`);
    const missing = await fx.sync();
    // Not a file left alone: the mapping's own failure (the run fails for it).
    expect(missing.skipped).toEqual([]);
    expect(missing.sourceMissing.map((k) => [k.mapping, k.reason])).toEqual([['docs', 'source-missing']]);
    fs.mkdirSync(fx.src);
    const empty = await fx.sync();
    expect(empty.sourceMissing.map((k) => k.message)).toEqual([
      expect.stringContaining("source folder 'src' is empty although the state knows files from it"),
    ]);
    expect(missing.deletedOutputs.concat(empty.deletedOutputs)).toEqual([]);
    expect(fx.exists('out/de/a.txt') && fx.exists('out/de/b/c.txt')).toBe(true);
    // once the files are back, nothing needs doing
    fs.rmSync(fx.src, { recursive: true });
    fs.renameSync(`${fx.src}.away`, fx.src);
    const back = await fx.sync();
    expect(back.unchanged).toBe(2);
  });

  it('a renamed source with on_source_delete: delete reuses the old output before deleting it', async () => {
    fx = await createFixture({
      files: { 'old.txt': 'Moving.\n' },
      manifest: {
        on_source_delete: 'delete',
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    await fx.sync();
    const translated = fx.read('out/de/old.txt');
    fs.renameSync(path.join(fx.src, 'old.txt'), path.join(fx.src, 'new.txt'));
    const mark = fx.mark();
    const s = await fx.sync();
    expect(fx.uploads(mark)).toEqual([]);
    expect(s.reused).toBe(1);
    expect(fx.read('out/de/new.txt')).toBe(translated);
    expect(fx.exists('out/de/old.txt')).toBe(false);
  });

  it('emits progress events a progress view can follow', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n' } });
    const events = createSyncEvents();
    const seen: string[] = [];
    for (const name of [
      'job:queued',
      'job:uploading',
      'job:uploaded',
      'job:downloading',
      'job:done',
      'billed',
      'run:summary',
    ] as const)
      events.on(name, () => seen.push(name));
    let doneRef: { documentId?: string } | undefined;
    events.on('job:done', (r) => (doneRef = r));
    await fx.sync({ events });
    expect(seen.filter((n) => n === 'job:done')).toHaveLength(2);
    expect(seen.indexOf('job:uploaded')).toBeLessThan(seen.indexOf('job:done'));
    expect(seen.at(-1)).toBe('run:summary');
    expect(doneRef?.documentId).toMatch(/\w+/);
    expect(JSON.stringify(doneRef)).not.toContain('document_key');
  });

  it('a dry run plans without uploading or writing', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n', 'b.txt': 'A.\n' } });
    const s = await fx.sync({ dryRun: true });
    expect(s.translated).toBe(2);
    expect(s.reused).toBe(2);
    expect(fx.documentRequests()).toEqual([]);
    expect(fx.exists('out')).toBe(false);
    const again = await fx.sync();
    expect(again.translated).toBe(2);
    expect(again.hashed).toBe(2);
  });
});
