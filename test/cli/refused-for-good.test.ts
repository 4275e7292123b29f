import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { userFolders } from '../helpers/user-folder.js';

// A refusal no retry can change (the service took the note to be in its target language already)
// is not "will retry next run": the summary and status say what to change, and the next run
// sends nothing for it until that is done.

const folder = userFolders('locsync-refused-');
const NOTE = 'Plain notes.\n';

/** What `sync --json` said. */
async function sync(cwd: string): Promise<{ code: number | null; json: Record<string, unknown> }> {
  const r = await runCli(['sync', '--json'], { cwd });
  return { code: r.code, json: JSON.parse(r.stdout) as Record<string, unknown> };
}

describe('a target refused for good', () => {
  it('is not "will retry": the summary and status say what to change, and the fix works', async () => {
    // A manifest without source_lang (written before init wrote one): the service guesses the
    // short note is French.
    const cwd = folder({ 'docs/notes.txt': NOTE });
    expect((await runCli(['init'], { cwd })).code).toBe(0);
    const file = path.join(cwd, 'pipeline.yaml');
    const manifest = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, manifest.replace(/^ {4}source_lang: en\n/m, ''));

    const text = await runCli(['sync'], { cwd });
    expect(text.code).toBe(1);
    const failed = text.stdout.split('\n').find((l) => l.includes('failed: docs/notes.txt -> fr'));
    expect(failed).toContain('Source and target language are equal');
    expect(failed).not.toContain('will retry');
    expect(failed).toContain('Not retried, it fails the same way every time');
    expect(failed).toContain('set source_lang on mapping docs');

    const status = await runCli(['status', '--json'], { cwd });
    expect(status.code).toBe(1);
    const failures = (JSON.parse(status.stdout) as { failures: Array<Record<string, unknown>> }).failures;
    expect(failures).toEqual([
      expect.objectContaining({
        target: 'fr',
        gave_up: true,
        advice: expect.stringMatching(/set source_lang on mapping docs/),
      }),
    ]);
    // The next run sends nothing for it: the same request would fail the same way.
    const again = await sync(cwd);
    expect(again.code).toBe(1);
    expect(again.json).toMatchObject({
      uploads: 0,
      failed: [expect.objectContaining({ kind: 'needs-fix' })],
    });

    // The fix the advice names: the note is sent again, with its language, and translated.
    fs.writeFileSync(file, manifest);
    const fixed = await sync(cwd);
    expect(fixed.code).toBe(0);
    expect(fixed.json).toMatchObject({ translated: 1, uploads: 1, failed: [] });
    expect(fs.readFileSync(path.join(cwd, 'translated/fr/notes.txt'), 'utf8')).not.toBe(NOTE);
  }, 180_000);
});
