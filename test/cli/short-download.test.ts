import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/local-service/engine/index.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// A download cut short while its Content-Length announced the whole document, over real HTTP (the
// local service on port 0), a real state file and the CLI as a child process. A document can be
// downloaded once: the short part is never put in place; it is a lost download (uploaded again,
// reported), and the output is the whole translation.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const ONE_TARGET = {
  mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
};

describe('a download cut short under a Content-Length announcing the whole document', () => {
  it('is a lost download: uploaded again and delivered whole, never a short output', async () => {
    p = await opsProject({
      service: {
        faults: [{ match: { method: 'POST', path: '/v2/document/' }, cutDownloads: 1, cutAfterBytes: 20 }],
      },
      manifest: ONE_TARGET,
    });
    const text = Array.from({ length: 40 }, (_, i) => `Line ${i} of a document whose download is cut.`).join(
      '\n',
    );
    p.write('a.txt', `${text}\n`);
    const run = await p.cli(['sync', '--json']);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const summary = JSON.parse(run.stdout) as SyncSummary;
    expect(summary.failed).toEqual([]);
    expect(summary.lostDownloads).toEqual([expect.objectContaining({ file: 'a.txt', target: 'de' })]);
    // The service cut the first download after 20 bytes, with the whole length announced.
    const cut = p.service.requests().filter((r) => r.fault?.includes('cut-after:20'));
    expect(cut).toHaveLength(1);
    expect(cut[0]?.path).toMatch(/^\/v2\/document\/[^/]+\/result$/);
    expect(
      p.service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload),
    ).toHaveLength(2);
    // The output is the whole translation, byte for byte.
    const expected = path.join(p.dir, 'expected.txt');
    await createEngine().translateDocument(
      { path: path.join(p.dir, 'src/a.txt'), ext: 'txt', filename: 'a.txt' },
      { path: expected, ext: 'txt' },
      { targetLang: 'DE' },
    );
    expect(fs.readFileSync(path.join(p.dir, 'out/de/a.txt'), 'utf8')).toBe(fs.readFileSync(expected, 'utf8'));
    const report = (await p.cli(['report'])).stdout;
    expect(report).toContain('docs/a.txt -> de: 1 translation(s) lost before download');
  }, 120_000);
});
