// An answer that fails the checks never stays in the segment memory: the service echoes the source
// (a proxy in front of the local service), the output fails the checks (quarantined), and then
// `--retry-failed-qa` and a new file with the same segments send those segments
// again (counted at the service's request log) instead of writing the echo from the memory and
// failing again. Both backends (this file also runs in the "sync on postgres" project).
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { clientThrough, rewritingProxy, type RewritingProxy } from '../helpers/rewriting-proxy.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { API_KEY, createFixture, type Fixture } from '../sync/fixture.js';
import { charactersSent, segmentsMapping } from './helpers.js';

const TEXT = [
  'Open the valve slowly before you start the pump.',
  'Wait until the green light turns on.',
  'Close the valve when the tank is full.',
].join('\n\n');

let fx: Fixture | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await fx?.close();
  fx = proxy = undefined;
});

/** The text requests go through a proxy answering each with the text sent: the source, echoed. */
async function echoingClient(f: Fixture): Promise<ServiceClient> {
  proxy = await rewritingProxy(f.service.url, (_, sent) => sent);
  return clientThrough(proxy.url, API_KEY);
}

/** The files the run failed by the checks (a summary also lists failures of earlier runs: once each). */
function failedFiles(s: SyncSummary): string[] {
  return [...new Set(s.failed.filter((f) => f.kind === 'qa-failed').map((f) => f.file))].sort();
}

describe('answers that fail the checks are not kept in the segment memory', () => {
  it('--retry-failed-qa and a new file with the same segments send them again', async () => {
    fx = await createFixture({ manifest: { mappings: [segmentsMapping()] }, files: { 'a.txt': TEXT } });
    const echoed = await fx.sync({ client: await echoingClient(fx) });
    expect(echoed.failed.map((f) => [f.file, f.kind])).toEqual([['a.txt', 'qa-failed']]);
    const billed = charactersSent(fx);
    expect(billed).toBeGreaterThan(0);

    // The quarantined one, retried through the echo: bought again (not written from memory).
    let mark = fx.mark();
    const again = await fx.sync({ client: await echoingClient(fx), retryFailedQa: true });
    expect(failedFiles(again)).toEqual(['a.txt']);
    expect(charactersSent(fx, mark)).toBe(billed);

    // A new file with the same text, through the real service: its segments are bought, delivered.
    fx.write('src/b.txt', TEXT);
    mark = fx.mark();
    const copy = await fx.sync();
    expect(failedFiles(copy)).not.toContain('b.txt');
    expect(charactersSent(fx, mark)).toBe(billed);
    expect(fx.read('out/de/b.txt')).not.toBe(TEXT);

    // Then a.txt retried: written from those translations, delivered.
    const real = await fx.sync({ retryFailedQa: true });
    expect(failedFiles(real)).toEqual([]);
    expect(fx.read('out/de/a.txt')).toBe(fx.read('out/de/b.txt'));
  });
});
