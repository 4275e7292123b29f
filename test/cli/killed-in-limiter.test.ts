import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { accepted, nextSyncUploadsEachOnce, recordedIds, setRate, syncChild } from './limiter-fixture.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// An upload is recorded as started when it leaves, once the rate limits let it go: a sync killed
// (kill -9) while an upload still waits in the client's rate limiter has sent nothing for it, so the
// next run uploads it once and lists nothing as possibly billed twice. Over real HTTP (the local
// service on port 0), a real state file and the CLI as a child process.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const FILES = ['a.txt', 'b.txt', 'c.txt'];

/** `sync` as a child process, killed (SIGKILL) `settleMs` after it recorded its first upload's answer. */
async function killedAfterFirstUpload(project: OpsProject, settleMs: number): Promise<void> {
  const child = syncChild(project, ['--no-progress']);
  try {
    await child.firstRecorded();
    expect(Object.keys(accepted(project)), child.stderr()).toHaveLength(1);
    expect(recordedIds(project), child.stderr()).toBe(1);
    await sleep(settleMs);
  } finally {
    child.signal('SIGKILL');
    await child.exited;
  }
}

describe('a sync killed while an upload waits in the rate limiter', () => {
  it('lists nothing as possibly billed twice; the next run uploads what never left, once', async () => {
    p = await opsProject({
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    for (const f of FILES) p.write(f, `The text of ${f}.\n`);
    // One request every 1,000 seconds: the first upload leaves at once, the second waits in the rate
    // limiter (two worker places) until the run is killed; it never reaches the service.
    setRate(p, 0.001);
    await killedAfterFirstUpload(p, 1000);
    const first = accepted(p);
    expect(Object.values(first)).toEqual([1]);
    expect(p.service.requests().filter((r) => r.path === '/v2/document')).toHaveLength(1);

    // Nothing the killed run sent was left without its answer; each document accepted exactly once.
    await nextSyncUploadsEachOnce(p, FILES);
    const report = await p.cli(['report']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).not.toContain('Possibly billed twice');
  }, 120_000);
});
