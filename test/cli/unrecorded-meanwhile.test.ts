import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gateRun } from '../../src/cli/sync-gate.js';
import { loadManifest } from '../../src/manifest/load.js';
import { openState } from '../../src/state/store.js';
import { makePlan } from '../../src/sync/engine.js';
import { insertJobRow } from '../helpers/job-rows.js';

// The refusal of a run whose state records no translation beside existing outputs (a lost state)
// is checked after planning. With several workers, another one may take a file up and write its
// output between this worker's plan and that check: its job is recorded by then, and the state is
// not lost (a kill-test round on PostgreSQL failed a worker that way).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function planned() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-unrecorded-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'a.txt'), 'Hello world.\n');
  fs.writeFileSync(
    path.join(dir, 'pipeline.yaml'),
    'version: 1\nservice:\n  url: http://127.0.0.1:9\nmappings:\n  - name: docs\n    source: src\n    output: out/{lang}/{path}\n    targets: [{ lang: de }]\n',
  );
  const loaded = await loadManifest(path.join(dir, 'pipeline.yaml'));
  const state = openState(loaded.statePath);
  const unused = () => Promise.reject(new Error('no call to the service while planning'));
  const client = { uploadDocument: unused, getDocumentStatus: unused, downloadDocument: unused };
  const { plan } = await makePlan({ loaded, state, connection: { client } });
  expect(plan.actions.map((a) => [a.kind, 'reason' in a ? a.reason : undefined])).toEqual([
    ['translate', 'new'],
  ]);
  // Meanwhile the output appears, as another worker writes it.
  fs.mkdirSync(path.join(dir, 'out', 'de'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'out', 'de', 'a.txt'), '[de] Hello world.\n');
  const gate = () => gateRun({ loaded, state, plan, checks: { configArg: '' } });
  return { state, gate };
}

describe('a run whose plan found no output, when one appears before its check', () => {
  it("goes on when the state records that output's job now (another worker wrote it)", async () => {
    const { state, gate } = await planned();
    try {
      insertJobRow(state, {
        mapping: 'docs',
        rel_path: 'a.txt',
        sha256: 'sha-a',
        target_lang: 'de',
        fingerprint: 'fp',
        base_fingerprint: 'base',
        output_path: 'out/de/a.txt',
        run_id: null,
      });
      await expect(gate()).resolves.not.toThrow();
    } finally {
      state.close();
    }
  });

  it('is refused as a lost state when nothing records it', async () => {
    const { state, gate } = await planned();
    try {
      await expect(gate()).rejects.toThrow(
        /records no translation, but 1 output\(s\) it would upload for exist already/,
      );
    } finally {
      state.close();
    }
  });
});
