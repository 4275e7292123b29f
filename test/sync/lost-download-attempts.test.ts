import { afterEach, describe, expect, it } from 'vitest';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// A translation lost before its download is uploaded again in the same run, and that re-upload
// counts no attempt of max_attempts (the loss is not the document's fault). When the re-upload
// fails in a way that counts no attempt either (here the quota, 456), the first upload, which the
// service took and billed, stays counted: status shows it, and max_attempts still bounds how often
// the document is uploaded.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const UPLOAD = { method: 'POST', path: '/v2/document' };

/** The job's attempts as the state records them. */
async function attempts(f: Fixture): Promise<number | undefined> {
  const st = await f.open();
  try {
    return (await st.state.jobs.open())[0]?.attempts;
  } finally {
    await st.close();
  }
}

describe("a lost download's re-upload that meets the quota", () => {
  it("keeps the first upload's attempt counted: status shows 1, the next run counts 2", async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Its translation is lost before its download.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      // The first download is cut short: the document counts as downloaded, its translation is lost.
      service: {
        faults: [{ match: { method: 'POST', path: '/v2/document/' }, cutDownloads: 1, cutAfterBytes: 5 }],
      },
    });
    const real = fx.client();
    let uploads = 0;
    const client: DocumentClient = {
      uploadDocument: (file, request, o) => {
        // The re-upload after the lost download is answered 456 (the quota is used up).
        if (++uploads === 2) fx!.service.addFaults({ match: UPLOAD, status: 456, count: 1 });
        return real.uploadDocument(file, request, o);
      },
      getDocumentStatus: (id, key, o) => real.getDocumentStatus(id, key, o),
      downloadDocument: (id, key, out, o) => real.downloadDocument(id, key, out, o),
    };
    const first = await fx.sync({ client });
    expect(first.lostDownloads.map((l) => l.file)).toEqual(['a.txt']);
    expect(first.failed.map((f) => [f.file, f.kind, f.willRetry])).toEqual([['a.txt', 'quota', true]]);
    expect(uploads).toBe(2);
    expect(fx.uploads()).toHaveLength(1); // taken (and billed) by the service; the 456 was not
    expect(await attempts(fx)).toBe(1);
    const status = await runCliOn(fx, 'status', '--json', '--no-scan');
    const failures = (JSON.parse(status.stdout) as { failures: Array<{ file: string; attempts: number }> })
      .failures;
    expect(failures.map((x) => [x.file, x.attempts])).toEqual([['a.txt', 1]]);

    fx.service.clearFaults();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(fx.exists('out/de/a.txt')).toBe(true);
    // Two uploads the service took, two attempts.
    expect(fx.uploads()).toHaveLength(2);
    const st = await fx.open();
    try {
      const done = await st.state.jobs.latestDoneOf('out/de/a.txt');
      expect((await st.state.jobs.get(done!.id))?.attempts).toBe(2);
    } finally {
      await st.close();
    }
  }, 60_000);
});
