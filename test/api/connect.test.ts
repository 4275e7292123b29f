// openConnection: the key comes from the environment variable the manifest names, never from the
// manifest; without a url the embedded local service runs under the state folder.

import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/cli/connect.js';
import { AuthError } from '../../src/api/errors.js';
import { loadManifest } from '../../src/manifest/load.js';
import { ConfigError } from '../../src/util/errors.js';
import { KEY, useServiceAndTempDir, waitForDocument } from './helpers.js';

const fixture = useServiceAndTempDir();

async function manifest(service: string): Promise<Awaited<ReturnType<typeof loadManifest>>> {
  const path = join(fixture.dir(), `pipeline-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(
    path,
    `version: 1\nservice:\n${service}\nmappings:\n  - name: docs\n    source: src\n    output: out/{lang}/{path}\n    targets: [{ lang: de }]\n`,
  );
  return loadManifest(path);
}

describe('with a service url', () => {
  it('names the missing environment variable', async () => {
    const loaded = await manifest(`  url: ${fixture.svc().url}\n  key_env: ACME_TRANSLATE_KEY`);
    const err = await openConnection(loaded, { env: {}, stateDir: fixture.dir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/ACME_TRANSLATE_KEY/);
    expect(fixture.svc().requests()).toHaveLength(0);
  });

  it('uses the key from that variable and the manifest settings', async () => {
    const loaded = await manifest(`  url: ${fixture.svc().url}\n  key_env: ACME_TRANSLATE_KEY\n  plan: free`);
    const conn = await openConnection(loaded, { env: { ACME_TRANSLATE_KEY: KEY }, stateDir: fixture.dir() });
    expect(conn.embedded).toBeUndefined();
    expect(conn.client.baseUrl).toBe(fixture.svc().url);
    // plan: free from the manifest
    expect(conn.client.plan).toBe('free');
    const res = await conn.client.translateText({ text: ['Hello'], target_lang: 'DE' });
    expect(res.translations).toHaveLength(1);
    await conn.close();

    const wrong = await openConnection(loaded, {
      env: { ACME_TRANSLATE_KEY: 'not-the-key-1234' },
      stateDir: fixture.dir(),
    });
    await expect(wrong.client.translateText({ text: ['Hello'], target_lang: 'DE' })).rejects.toBeInstanceOf(
      AuthError,
    );
    await wrong.close();
  });
});

describe('without a service url', () => {
  it('starts the embedded service with its data under <stateDir>/service, and stops it on close', async () => {
    const loaded = await manifest(`  local: { translate_seconds: 0.01, queue_seconds: 0 }`);
    const stateDir = join(fixture.dir(), 'state');
    const conn = await openConnection(loaded, { env: {}, stateDir });
    expect(conn.embedded).toBeDefined();
    const src = join(fixture.dir(), 'hello.txt');
    await writeFile(src, 'Hello.');
    const doc = await conn.client.uploadDocument(src, { target_lang: 'DE' });
    expect(await waitForDocument(conn.client, doc)).toMatchObject({ status: 'done' });
    expect((await stat(join(stateDir, 'service'))).isDirectory()).toBe(true);
    const url = conn.embedded!.url;
    await conn.close();
    await expect(fetch(`${url}/_locsync/health`)).rejects.toThrow();
  });
});
