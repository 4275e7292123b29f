import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../src/local-service/index.js';
import { KEY, call, download, start, status, translateDocument, upload, waitFinished } from './helpers.js';
import { stubEngine } from './stub-engine.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function dataDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'locsync-service-test-'));
  dirs.push(d);
  return d;
}

describe('persistence (dataDir)', () => {
  it('keeps style lists, jobs and files across a restart; download works once after it', async () => {
    const dir = await dataDir();
    const a = await start({ dataDir: dir, engine: stubEngine() });
    const style = (
      await call<{ style_id: string; version: number }>(a, 'POST', '/v3/style_rules', {
        name: 'kept',
        language: 'de',
        custom_instructions: [{ label: 'l', prompt: 'p' }],
      })
    ).body;
    await call(a, 'PATCH', `/v3/style_rules/${style.style_id}`, { name: 'kept 2' });
    const done = await translateDocument(a, 'a.txt', 'hello');
    const pending = await upload(a, 'b.txt', 'later'); // done after restart at the latest
    await a.close();

    const b = await start({ dataDir: dir, engine: stubEngine() });
    const got = await call<{ name: string; version: number; custom_instructions: unknown[] }>(
      b,
      'GET',
      `/v3/style_rules/${style.style_id}`,
    );
    expect(got.body).toMatchObject({ name: 'kept 2', version: 2 });
    expect(got.body.custom_instructions).toHaveLength(1);
    expect((await status(b, done.document_id, done.document_key)).body.status).toBe('done');
    const dl = await download(b, done.document_id, done.document_key);
    expect(dl.status).toBe(200);
    expect(dl.text).toBe('[de] hello');
    expect((await waitFinished(b, pending.body.document_id, pending.body.document_key)).status).toBe('done');
    await b.close();

    const c = await start({ dataDir: dir, engine: stubEngine() });
    expect((await download(c, done.document_id, done.document_key)).status).toBe(404);
    expect((await download(c, pending.body.document_id, pending.body.document_key)).text).toBe('[de] later');
    // downloaded documents leave no files behind
    expect((await readdir(join(dir, 'files'))).filter((f) => !f.endsWith('.part'))).toEqual([]);
  });

  it('resumes a job that was translating when the service stopped', async () => {
    const dir = await dataDir();
    const a = await start({ dataDir: dir, engine: stubEngine({ hang: true }) });
    const up = await upload(a, 'a.txt', 'resume me');
    let st = await status(a, up.body.document_id, up.body.document_key);
    while (st.body.status === 'queued') st = await status(a, up.body.document_id, up.body.document_key);
    expect(st.body.status).toBe('translating');
    await a.close();

    const engine = stubEngine();
    const b = await start({ dataDir: dir, engine });
    const final = await waitFinished(b, up.body.document_id, up.body.document_key);
    expect(final.status).toBe('done');
    expect(engine.calls).toHaveLength(1);
    expect((await download(b, up.body.document_id, up.body.document_key)).text).toBe('[de] resume me');
  });

  it('keeps queued jobs queued across a restart, then translates them', async () => {
    const dir = await dataDir();
    const a = await start({ dataDir: dir, engine: stubEngine(), queueSeconds: 2 });
    const up = await upload(a, 'a.txt', 'q');
    const { document_id: id, document_key: key } = up.body;
    expect((await status(a, id, key)).body.status).toBe('queued');
    await a.close();
    const b = await start({ dataDir: dir, engine: stubEngine(), queueSeconds: 0 });
    // the job keeps its original queue time (2 s after upload), not the new service's 0
    expect((await status(b, id, key)).body.status).toBe('queued');
    expect((await waitFinished(b, id, key)).status).toBe('done');
  });

  it('keeps its database (document keys) readable by its owner only, also one left open before', async () => {
    const dir = await dataDir();
    const old = process.umask(0o022);
    try {
      await writeFile(join(dir, 'service.db-wal'), '');
      await chmod(join(dir, 'service.db-wal'), 0o644);
      const a = await start({ dataDir: dir, engine: stubEngine() });
      await translateDocument(a, 'a.txt', 'Hello', { target_lang: 'DE', source_lang: 'EN' });
      await a.close();
      const names = (await readdir(dir)).filter((n) => n.startsWith('service.db'));
      expect(names).toContain('service.db');
      for (const n of names) expect(((await stat(join(dir, n))).mode & 0o777).toString(8), n).toBe('600');
      await chmod(join(dir, 'service.db'), 0o644);
      const b = await start({ dataDir: dir, engine: stubEngine() });
      expect(((await stat(join(dir, 'service.db'))).mode & 0o777).toString(8)).toBe('600');
      await b.close();
    } finally {
      process.umask(old);
    }
  });

  it('in memory by default: a second service shares nothing', async () => {
    const a = await start();
    await call(a, 'POST', '/v3/style_rules', { name: 'x', language: 'de' });
    const b = await start();
    expect((await call<{ style_rules: unknown[] }>(b, 'GET', '/v3/style_rules')).body.style_rules).toEqual(
      [],
    );
  });

  it('close() is idempotent and stops answering', async () => {
    const s = await startService({ authKey: KEY });
    await s.close();
    await s.close();
    await expect(fetch(`${s.url}/_locsync/health`)).rejects.toThrow();
  });
});
