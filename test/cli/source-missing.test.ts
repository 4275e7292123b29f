import fs from 'node:fs';
import path from 'node:path';
import { stringify, parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';
import { hookReceiver } from '../helpers/webhook-receiver.js';

// A source folder that is not there (a typo, a share not mounted) is a failure with its own reason,
// not "nothing to do": sync and status exit 1, validate names it, a webhook says so. A mapping that
// allows it (allow_missing: a removable share) is left alone without failing.

function editManifest(p: OpsProject, edit: (m: Record<string, unknown>) => void): void {
  const m = parse(fs.readFileSync(p.manifest, 'utf8')) as Record<string, unknown>;
  edit(m);
  fs.writeFileSync(p.manifest, stringify(m));
}

const mapping = (m: Record<string, unknown>) => (m.mappings as Array<Record<string, unknown>>)[0]!;

describe('a missing source folder', () => {
  let p: OpsProject | undefined;
  let hook: Awaited<ReturnType<typeof hookReceiver>> | undefined;
  afterEach(async () => {
    await p?.close();
    await hook?.close();
    p = hook = undefined;
  });

  it('a typo in source: fails sync and status (exit 1, reason source-missing), validate names the line, a webhook says so; allow_missing: true lets it be', async () => {
    hook = await hookReceiver();
    p = await opsProject({ manifest: { notify: { webhook: { url: hook.url } } } });
    p.write('a.txt', 'A document.\n');
    editManifest(p, (m) => (mapping(m).source = 'scr'));

    const validate = await p.cli(['validate']);
    expect(validate.code).toBe(EXIT.usage);
    expect(validate.stdout).toMatch(/pipeline\.yaml:\d+:\d+: .*source folder 'scr' does not exist/);
    expect(validate.stdout).not.toMatch(/is valid/);

    const sync = await p.cli(['sync']);
    expect(sync.code).toBe(EXIT.failed);
    expect(sync.stdout).toMatch(/failed: mapping docs: source folder 'scr' does not exist/);
    expect(hook.messages.map((m) => m.event)).toContain('source-missing');

    const status = await p.cli(['status', '--json']);
    expect(status.code).toBe(EXIT.failed);
    expect(JSON.parse(status.stdout)).toMatchObject({
      last_outcome: { command: 'sync', status: 'failed', reason: 'source-missing' },
    });

    // A removable share: allowed to be away, nothing fails.
    editManifest(p, (m) => (mapping(m).allow_missing = true));
    expect((await p.cli(['validate'])).code).toBe(EXIT.ok);
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);
    expect((await p.cli(['status'])).code).toBe(EXIT.ok);
  }, 60_000);

  it('a share that looks empty (its files gone at once) fails the run and deletes nothing', async () => {
    p = await opsProject({ manifest: { on_source_delete: 'delete' } });
    p.write('a.txt', 'A document.\n');
    p.write('b.txt', 'Another one.\n');
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);
    // The mount point is there, the share is not.
    fs.rmSync(path.join(p.dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(p.dir, 'src'));
    const sync = await p.cli(['sync']);
    expect(sync.code).toBe(EXIT.failed);
    expect(sync.stdout).toMatch(/source folder 'src' is empty although the state knows files from it/);
    expect(fs.existsSync(path.join(p.dir, 'out/de/a.txt'))).toBe(true);
    expect((await p.cli(['status'])).code).toBe(EXIT.failed);
  }, 60_000);
});
