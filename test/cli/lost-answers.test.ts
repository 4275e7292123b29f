import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/local-service/types.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// An upload the service accepted whose answer was dropped ("maybe billed"), over real HTTP (the
// local service on port 0), a real state file and the CLI as a child process: uploaded again in the
// same run and listed as possibly billed twice; or, when the manifest says so, left to the next run.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const UPLOAD = { method: 'POST', path: '/v2/document' };
const ONE_TARGET = {
  mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
};

/** Uploads of `filename` that reached the service, in order (dropped answers included). */
function uploadsOf(project: OpsProject, filename: string): RequestLogEntry[] {
  return project.service
    .requests()
    .filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload?.filename === filename);
}

async function possiblyBilledTwice(project: OpsProject): Promise<{ report: string; status: unknown[] }> {
  const report = await project.cli(['report']);
  expect(report.code, report.stderr).toBe(0);
  const status = await project.cli(['status', '--json', '--no-scan']);
  expect(status.code, status.stderr).toBe(0);
  return {
    report: report.stdout,
    status: (JSON.parse(status.stdout) as { possibly_billed_twice: unknown[] }).possibly_billed_twice,
  };
}

describe('an upload accepted whose answer is lost', () => {
  // Lost: the connection dropped after the service took the document; or answered 200 with an answer
  // that cannot be read (a proxy's page instead of the JSON, JSON without the document's id and key):
  // billed either way, its id lost.
  it.each([
    {
      answer: 'dropped',
      fault: { drop: 1, dropAfterBody: true },
      first: { status: 0, fault: 'drop-after-body' },
    },
    {
      answer: 'answered 200 with a proxy page, not JSON',
      fault: { garble: 1 },
      first: { status: 200, fault: 'garble:html' },
    },
    {
      answer: 'answered 200 with JSON without document_id and document_key',
      fault: { garble: 1, garbleAs: 'other-json' as const },
      first: { status: 200, fault: 'garble:other-json' },
    },
  ])(
    '($answer) is uploaded again in the same run, delivered, and listed as possibly billed twice',
    async ({ fault, first }) => {
      p = await opsProject({
        service: { faults: [{ match: UPLOAD, ...fault }] },
        manifest: ONE_TARGET,
      });
      p.write('a.txt', 'The answer to this upload is lost.\n');
      const run = await p.cli(['sync', '--json']);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      const summary = JSON.parse(run.stdout) as SyncSummary;
      expect(summary.failed).toEqual([]);
      expect(summary.translated).toBe(1);
      expect(summary.unconfirmedUploads).toEqual([
        { mapping: 'docs', file: 'a.txt', target: 'de', cause: 'lost-answer' },
      ]);
      expect(fs.readFileSync(path.join(p.dir, 'out/de/a.txt'), 'utf8')).not.toBe('');
      // The service has the document whose answer was lost: accepted (an id), never read.
      const [lost, again, ...more] = uploadsOf(p, 'a.txt');
      expect(more).toEqual([]);
      expect(lost).toMatchObject(first);
      expect(lost?.upload?.document_id).toBeTruthy();
      expect(again?.status).toBe(200);
      expect(again?.upload?.document_id).not.toBe(lost?.upload?.document_id);

      const { report, status } = await possiblyBilledTwice(p);
      expect(report).toContain('Possibly billed twice (1 document');
      expect(report).toContain('docs/a.txt -> de: 1 upload(s) whose answer was lost');
      expect(status).toEqual([
        expect.objectContaining({ file: 'a.txt', target: 'de', unconfirmed_uploads: 1, status: 'done' }),
      ]);
    },
    120_000,
  );

  it('with service.retry_unanswered_uploads: false, is left to the next run (a person decides first)', async () => {
    p = await opsProject({
      service: { faults: [{ match: UPLOAD, drop: 1, dropAfterBody: true }] },
      manifest: ONE_TARGET,
    });
    const manifest = fs.readFileSync(p.manifest, 'utf8');
    fs.writeFileSync(
      p.manifest,
      manifest.replace(/^service:\n/m, 'service:\n  retry_unanswered_uploads: false\n'),
    );
    p.write('a.txt', 'The answer to this upload is lost.\n');
    const first = await p.cli(['sync', '--json']);
    expect(first.code, first.stderr).toBe(EXIT.failed);
    const summary = JSON.parse(first.stdout) as SyncSummary;
    expect(summary.failed).toEqual([
      expect.objectContaining({ file: 'a.txt', kind: 'maybe-accepted', willRetry: true }),
    ]);
    expect(summary.failed[0]?.error).toContain('not retried in this run');
    expect(uploadsOf(p, 'a.txt')).toHaveLength(1);
    expect(fs.existsSync(path.join(p.dir, 'out/de/a.txt'))).toBe(false);

    const second = await p.cli(['sync']);
    expect(second.code, second.stderr).toBe(EXIT.ok);
    expect(uploadsOf(p, 'a.txt')).toHaveLength(2);
    const { report, status } = await possiblyBilledTwice(p);
    expect(report).toContain('docs/a.txt -> de: 1 upload(s) whose answer was lost');
    expect(status).toEqual([expect.objectContaining({ file: 'a.txt', unconfirmed_uploads: 1 })]);
  }, 120_000);
});
