import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { userFolders } from '../helpers/user-folder.js';

// A new team's folder of Markdown under the manifest `locsync init` writes (method: document, the
// default): the document service takes no .md, so the segment path translates it rather than
// leaving the folder untranslated as "unsupported".

const folder = userFolders('locsync-md-doc-');

const GUIDE = '# Guide\n\nInstall the tool. Then run it.\n\n- one\n- two\n';

describe('Markdown under method: document', () => {
  it('is planned and translated by segments; a JSON file says what a string file needs', async () => {
    const cwd = folder({ 'docs/guide.md': GUIDE, 'docs/en.json': '{"quit": "Quit"}\n' });
    expect((await runCli(['init'], { cwd })).code).toBe(0);

    const plan = await runCli(['plan'], { cwd });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'guide.md → translated/de/guide.md (de, new, by segments: the document service takes no .md)',
    );

    const sync = await runCli(['sync', '--json'], { cwd });
    expect(sync.code).toBe(0);
    const json = JSON.parse(sync.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ translated: 2, uploads: 0, failed: [] });
    for (const lang of ['de', 'fr']) {
      const out = fs.readFileSync(path.join(cwd, `translated/${lang}/guide.md`), 'utf8');
      // Translated, with the source's structure kept byte for byte around the text.
      expect(out).toMatch(/^# \S.*\n\n.*\n\n- .*\n- .*\n$/);
      expect(out).not.toContain('Install the tool.');
    }
    // A JSON file in a folder of documents may be configuration: listed, with what it needs.
    expect(json.unsupported).toEqual([
      expect.objectContaining({
        file: 'en.json',
        message: expect.stringMatching(
          /string files, translated only with method: segments .*locales\/\{lang_bcp47\}\.json/,
        ),
      }),
    ]);

    const again = await runCli(['sync', '--json'], { cwd });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ translated: 0, unchanged: 2 });
  }, 180_000);
});
