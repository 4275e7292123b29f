import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../src/local-service/index.js';
import { OPS_KEY, opsProject, type OpsProject } from './ops-fixture.js';

// `locsync report --reconcile`: the service's own count (GET /v2/usage) for its billing period
// against locsync's ledger; an upload made behind locsync's back with the same key shows as a gap,
// explained, and exits 1 above the threshold.

const AUTH = { Authorization: `Service-Auth-Key ${OPS_KEY}` };

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** Another tool on the same key: one text document uploaded and translated, never by locsync. */
async function uploadBehindTheBack(url: string, text: string): Promise<void> {
  const form = new FormData();
  form.append('target_lang', 'DE');
  form.append('file', new Blob([text], { type: 'text/plain' }), 'elsewhere.txt');
  const up = (await (
    await fetch(`${url}/v2/document`, { method: 'POST', headers: AUTH, body: form })
  ).json()) as {
    document_id: string;
    document_key: string;
  };
  for (;;) {
    const st = (await (
      await fetch(`${url}/v2/document/${up.document_id}`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ document_key: up.document_key }),
      })
    ).json()) as { status: string };
    if (st.status === 'done') return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('report --reconcile', () => {
  it("agrees with the service after locsync's own runs, and names the gap an upload behind its back made", async () => {
    p = await opsProject();
    p.write('a.txt', 'The first document of the team.\n');
    p.write('b.txt', 'The second document, a little longer than the first one.\n');
    expect((await p.cli(['sync', '-c', p.manifest])).code).toBe(0);

    const agreed = await p.cli(['report', '-c', p.manifest, '--reconcile', '--json']);
    expect(agreed.code, agreed.stderr).toBe(0);
    const r1 = (JSON.parse(agreed.stdout) as { reconciliation: Record<string, unknown> }).reconciliation;
    expect(r1).toMatchObject({ difference: 0, within_threshold: true, period: { from: 'service' } });
    expect(r1.service_characters).toBeGreaterThan(0);
    expect(r1.ledger_characters).toBe(r1.service_characters);

    const extra = 'A document another tool translated with the same key.';
    await uploadBehindTheBack(p.service.url, extra);
    const gap = await p.cli(['report', '-c', p.manifest, '--reconcile', '--threshold', '0']);
    expect(gap.code).toBe(1);
    expect(gap.stdout).toContain(
      `difference            +${extra.length} characters (above the threshold of 0)`,
    );
    expect(gap.stdout).toMatch(/another tool or person using the same API key/);
    // Within a threshold the same gap passes.
    expect((await p.cli(['report', '-c', p.manifest, '--reconcile', '--threshold', '1000'])).code).toBe(0);
  });

  it('the local service answers /v2/usage from what it billed, across restarts on its data folder', async () => {
    p = await opsProject();
    await uploadBehindTheBack(p.service.url, 'Twenty-one characters');
    const usage = async (url: string) =>
      (await (await fetch(`${url}/v2/usage`, { headers: AUTH })).json()) as {
        character_count: number;
        start_time: string;
        end_time: string;
      };
    const before = await usage(p.service.url);
    expect(before.character_count).toBe(21);
    expect(before.start_time).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    const again = await startService({ authKey: OPS_KEY, dataDir: p.serviceData });
    try {
      expect(await usage(again.url)).toEqual(before);
    } finally {
      await again.close();
    }
  });
});
