import { afterEach, describe, expect, it } from 'vitest';
import { repeatedUploads } from '../../src/report/queries.js';
import { startWatchFixture, waitFor, type WatchFixture } from './helpers.js';

// Watch keeps one run open for hours: an upload whose answer was lost is uploaded again by that
// run once its other work is done, as in `sync`, not left for a rescan or the next start.

let w: WatchFixture | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('locsync watch, an upload whose answer is lost', () => {
  it('is uploaded again in the same session, delivered, and listed as possibly billed twice', async () => {
    w = await startWatchFixture();
    const { fx } = w;
    fx.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, drop: 1, dropAfterBody: true });
    fx.write('src/a.txt', 'The answer to one upload of this file is lost.\n');
    // Waited for without settle(): the session retries on its own (a drain would make it go too).
    await waitFor('both outputs', () => fx.exists('out/de/a.txt') && fx.exists('out/fr/a.txt'));
    // The outputs are in place before their jobs are recorded done.
    await w.runner.settle();
    const uploads = fx.service
      .requests()
      .filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload?.document_id);
    // Three documents on the service: de and fr, and the one whose answer was dropped.
    expect(uploads).toHaveLength(3);
    expect(uploads.filter((r) => r.fault === 'drop-after-body')).toHaveLength(1);
    expect(repeatedUploads(w.state)).toEqual([
      expect.objectContaining({ file: 'a.txt', unconfirmed_uploads: 1, status: 'done' }),
    ]);
  }, 60_000);
});
