import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { listSourceFiles } from '../../src/sync/plan/list-sources.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, defaultManifest, type Fixture } from './fixture.js';

// Any name the file system accepts is planned, delivered and deleted like any other: line breaks in
// folder and file names, tabs, backslashes (a character of the name on posix, not a separator),
// leading dashes, right-to-left overrides, long names.

const NAMES = [
  'new\nline folder/inside.txt',
  'cr\rfolder/inside.txt',
  'sep\u2028folder/deeper\nstill/inside.txt',
  'file with\nline break.txt',
  'tab\tname.txt',
  'back\\slash.txt',
  'folder\\like/x.txt',
  '-leading-dash.txt',
  '--help.txt',
  'rtl\u202Eevil-txt.txt',
  `${'long-'.repeat(48)}name.txt`,
];

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('odd file and folder names', () => {
  it('are planned (plan --json lists every one), translated to outputs of the same name, kept, and deleted with their source', async () => {
    fx = await createFixture({
      files: {
        ...Object.fromEntries(NAMES.map((n, i) => [n, `Document number ${i}.\n`])),
        'keep.txt': 'Kept.\n',
      },
    });
    fs.writeFileSync(
      fx.manifestPath,
      stringify({
        ...defaultManifest(fx.service.url),
        mappings: [
          {
            name: 'docs',
            source: 'src',
            output: 'out/{lang}/{path}',
            targets: [{ lang: 'de' }],
            on_source_delete: 'delete',
          },
        ],
      }),
    );
    const plan = await runCli(['plan', '--json', '-c', fx.manifestPath], {
      env: { LOCSYNC_TEST_SYNC_KEY: API_KEY },
    });
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as {
      files: { toTranslate: Array<{ file: string; output: string }>; skipped: unknown[] };
      plan: { files: number };
    };
    expect(planned.plan.files).toBe(NAMES.length + 1);
    expect(planned.files.skipped).toEqual([]);
    expect(planned.files.toTranslate.map((t) => t.file).sort()).toEqual([...NAMES, 'keep.txt'].sort());
    for (const t of planned.files.toTranslate) expect(t.output).toBe(`out/de/${t.file}`);

    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.translated).toBe(NAMES.length + 1);
    for (const n of NAMES) expect(fx.read(`out/de/${n}`)).toContain(`${NAMES.indexOf(n)}`);
    // A backslash is part of the name: no folder 'back' or 'folder' was made for it.
    expect(fs.existsSync(path.join(fx.dir, 'out/de/back'))).toBe(false);
    expect(fs.existsSync(path.join(fx.dir, 'out/de/folder'))).toBe(false);

    const mark = fx.mark();
    const second = await fx.sync();
    expect(fx.uploads(mark)).toEqual([]);
    expect({ files: second.files, unchanged: second.unchanged, deleted: second.deletedOutputs }).toEqual({
      files: NAMES.length + 1,
      unchanged: NAMES.length + 1,
      deleted: [],
    });
    for (const n of NAMES) expect(fs.existsSync(path.join(fx.dir, 'out/de', n))).toBe(true);

    for (const n of NAMES) fs.rmSync(path.join(fx.src, n));
    const third = await fx.sync();
    expect([...third.deletedOutputs].sort()).toEqual(NAMES.map((n) => `out/de/${n}`).sort());
    for (const n of NAMES) expect(fs.existsSync(path.join(fx.dir, 'out/de', n))).toBe(false);
    expect(fx.exists('out/de/keep.txt')).toBe(true);
  });

  it('include and exclude patterns see names with line breaks like any other', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-names-'));
    try {
      for (const f of ['a\nb/drafts/x.txt', 'a\nb/y.txt', 'a\nb/z.md'])
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      for (const f of ['a\nb/drafts/x.txt', 'a\nb/y.txt', 'a\nb/z.md'])
        fs.writeFileSync(path.join(dir, f), 'x\n');
      const listed = async (include: string[], exclude: string[]) =>
        (await listSourceFiles(dir, include, exclude)).files.map((f) => f.relPath);
      expect(await listed(['**/*'], ['**/drafts/**'])).toEqual(['a\nb/y.txt', 'a\nb/z.md']);
      expect(await listed(['**/*.txt'], [])).toEqual(['a\nb/drafts/x.txt', 'a\nb/y.txt']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
