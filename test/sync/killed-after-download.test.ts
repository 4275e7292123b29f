import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpooled, spoolDirOf } from '../../src/util/spool.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { API_KEY, createFixture, onPostgres, runCliOn, type Fixture } from './fixture.js';

// The service hands a finished translation out once. A `locsync sync` killed after it received one
// in full, while it still checks it and writes it to the output, must not leave it to be paid for
// again: the next run delivers it from the spool, and the document is uploaded once.
//
// The moment is made deterministic with a named pipe: the output to be replaced is a FIFO, and
// `--overwrite-edits` keeps the output it replaces for `locsync review` (it copies it right before
// the new translation takes its name). Opening a FIFO for reading blocks until someone opens it for
// writing, so the sync stops there, with the download received in full and the output not yet
// written. The test sees a thread of the sync blocked in that open (Linux: its wchan in /proc is
// wait_for_partner) and kills it then; nothing ever opens the FIFO for writing, so the sync cannot
// get past that point before the kill.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Resolves once a thread of process `pid` waits in the open of a FIFO for a writer. */
async function blockedOnFifo(pid: number, exited: () => string | undefined): Promise<void> {
  for (;;) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      // Not started yet, or gone (then `exited` says so).
    }
    const waits = tasks.map((t) => {
      try {
        return fs.readFileSync(`/proc/${pid}/task/${t}/wchan`, 'utf8');
      } catch {
        return '';
      }
    });
    if (waits.includes('wait_for_partner')) return;
    const ended = exited();
    if (ended !== undefined)
      throw new Error(`the sync ended without reading the output it replaces: ${ended}`);
    await sleep(25);
  }
}

describe('a sync killed after the download arrived, before the output was written', () => {
  it('is delivered by the next run from the spool: one upload, one download, nothing odd in status', async () => {
    fx = await createFixture({
      files: { 'guide.txt': 'The guide.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
        // A killed worker's unit is taken over once its lease ran out.
        ...(onPostgres ? { postgres: { lease_seconds: 5 } } : {}),
      },
    });
    const f = fx;
    expect((await f.sync()).failed).toEqual([]);
    const first = f.read('out/de/guide.txt');

    f.write('src/guide.txt', 'The guide, second edition.\n');
    const output = path.join(f.dir, 'out/de/guide.txt');
    fs.rmSync(output);
    execFileSync('mkfifo', [output]);
    const mark = f.mark();
    const child = spawn(
      process.execPath,
      [...CLI_ARGS, 'sync', '--overwrite-edits', '--yes', '-c', f.manifestPath],
      {
        cwd: f.dir,
        env: { ...process.env, NO_COLOR: '1', LOCSYNC_TEST_SYNC_KEY: API_KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let said = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (said += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (said += d));
    let exited = false;
    const gone = new Promise<void>((resolve) =>
      child.on('exit', () => {
        exited = true;
        resolve();
      }),
    );
    await blockedOnFifo(child.pid as number, () => (exited ? said : undefined));
    // Received in full: the service handed the translation out (and will not again).
    const served = f.documentRequests(mark).filter((r) => r.path.endsWith('/result') && r.status === 200);
    expect(served).toHaveLength(1);
    child.kill('SIGKILL');
    await gone;
    const spoolDir = spoolDirOf((await f.load()).statePath);
    const spooledAfterKill = listSpooled(spoolDir);
    fs.rmSync(output);

    const second = await runCliOn(f, 'sync', '--json');
    expect(second.code, second.stderr).toBe(0);
    const delivered = f.read('out/de/guide.txt');
    expect(delivered).toMatch(/^\[de\] \S/);
    expect(delivered).not.toBe(first);
    // Uploaded once and downloaded once: the second run asked the service for nothing of it.
    expect(
      f.uploads(mark).map((u) => u.filename),
      second.stdout + second.stderr,
    ).toEqual(['guide.txt']);
    expect(f.documentRequests(mark).filter((r) => r.path.endsWith('/result'))).toHaveLength(1);
    // It was there, in the spool, when the worker died; it is gone once the output is recorded.
    expect(spooledAfterKill).toEqual([served[0]?.documentId]);
    expect(listSpooled(spoolDir)).toEqual([]);

    // Billed once: status lists nothing spooled and nothing possibly billed twice; the next run
    // finds nothing to do.
    const status = await runCliOn(f, 'status', '--no-scan', '--json');
    const data = JSON.parse(status.stdout) as {
      spooled: { documents: unknown[] };
      possibly_billed_twice: unknown[];
    };
    expect(data.spooled.documents).toEqual([]);
    expect(data.possibly_billed_twice).toEqual([]);
    const third = f.mark();
    expect((await runCliOn(f, 'sync')).code).toBe(0);
    expect(f.documentRequests(third)).toEqual([]);
  }, 180_000);
});
