import fs from 'node:fs';
import Database from 'better-sqlite3';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { WebhookNotifier } from '../../src/notify/webhook.js';
import { FAULT_DOCUMENT_MESSAGE } from '../../src/local-service/faults.js';
import { ServiceClient } from '../../src/api/client.js';
import { jsonLines, OPS_KEY, opsProject, type OpsProject } from '../cli/ops-fixture.js';
import { houseStyleManifest } from '../sync/fixture.js';

// A webhook receiver on 127.0.0.1: it answers 503 to the first `failFirst` messages.

interface Receiver {
  url: string;
  messages: Array<Record<string, unknown>>;
  requests: number;
  close(): Promise<void>;
}

async function receiver(failFirst: number): Promise<Receiver> {
  const r = { messages: [] as Array<Record<string, unknown>>, requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      r.requests++;
      if (r.requests <= failFirst) return void res.writeHead(503).end();
      r.messages.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    url: `http://127.0.0.1:${port}/hooks/T0KEN-9f8e7d6c5b4a`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe('webhook notifications', () => {
  let p: OpsProject | undefined;
  let hook: Receiver | undefined;
  afterEach(async () => {
    await p?.close();
    await hook?.close();
    p = hook = undefined;
  });

  it('a failed sync posts a JSON message with the failures, retried past two 503s; the URL never appears in the log', async () => {
    hook = await receiver(2);
    p = await opsProject({
      service: { faults: [{ errorDocuments: 1 }] },
      manifest: { notify: { webhook: { url: hook.url, events: ['run-failed', 'run-interrupted'] } } },
    });
    p.write('a.txt', 'First document.\n');
    const r = await p.cli(['sync', '--log-level', 'debug']);
    expect(r.code).toBe(1);
    expect(hook.requests).toBe(3);
    expect(hook.messages).toHaveLength(1);
    const m = hook.messages[0]!;
    expect(m).toMatchObject({ event: 'run-failed', pipeline: p.manifest });
    expect(m.text).toMatch(/1 document\(s\) failed; see locsync status/);
    expect((m.details as { failed: Array<{ kind: string; error: string }> }).failed[0]).toMatchObject({
      kind: 'job-error',
      error: expect.stringContaining(FAULT_DOCUMENT_MESSAGE),
    });
    const sent = jsonLines(r.stderr).find((l) => l.msg === 'notification sent');
    expect(sent).toMatchObject({
      event: 'run-failed',
      webhook: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/\[REDACTED\]$/),
    });
    expect(r.stderr + r.stdout).not.toContain('T0KEN-9f8e7d6c5b4a');

    // The service echoed the failed document's key in its message: redacted wherever it is shown
    // or stored — the webhook body, the summary, status, the state's error column.
    expect((m.details as { failed: Array<{ error: string }> }).failed[0]!.error).toContain(
      '(document_key [REDACTED])',
    );
    const keys = p.documentKeys();
    expect(keys.length).toBeGreaterThan(0);
    const status = await p.cli(['status']);
    const statusJson = await p.cli(['status', '--json']);
    expect(statusJson.stdout).toContain('[REDACTED]');
    const db = new Database(path.join(p.dir, '.locsync/state.db'), { readonly: true });
    const errors = db
      .prepare<[], { error: string }>('SELECT error FROM jobs WHERE error IS NOT NULL')
      .all()
      .map((e) => e.error);
    db.close();
    expect(errors.join('\n')).toContain('(document_key [REDACTED])');
    for (const key of keys)
      for (const text of [
        JSON.stringify(hook.messages),
        r.stdout,
        r.stderr,
        status.stdout,
        statusJson.stdout,
        ...errors,
      ])
        expect(text).not.toContain(key);
  }, 90_000);

  it("drift on one style list blocks only its targets, is the run's recorded reason, and is notified", async () => {
    hook = await receiver(0);
    p = await opsProject({
      manifest: {
        ...houseStyleManifest('use_24_hour_clock'),
        notify: { webhook: { url: hook.url, events: ['drift'] } },
      },
    });
    p.write('a.txt', 'First document.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    // Someone changes the list in the service's web UI.
    const other = new ServiceClient({ baseUrl: p.service.url, apiKey: OPS_KEY });
    const list = (await other.listAllStyleRules()).find((l) => l.language === 'de')!;
    await other.patchStyleRules(list.style_id, {
      configured_rules: { numbers: { thousands_separator: 'do_not_use' } },
    });
    other.close();

    p.write('b.txt', 'Second document.\n');
    const r = await p.cli(['sync']);
    expect(r.code).toBe(1);
    // fr has no style list: translated; de uses the drifted list: nothing sent for it.
    expect(fs.existsSync(path.join(p.dir, 'out/fr/b.txt'))).toBe(true);
    expect(fs.existsSync(path.join(p.dir, 'out/de/b.txt'))).toBe(false);
    expect(
      p.service
        .requests()
        .filter((q) => q.upload?.filename === 'b.txt')
        .map((q) => q.upload!.target_lang),
    ).toEqual(['FR']);
    expect(r.stderr).toContain('style list house was changed on the service');
    expect(r.stderr).not.toMatch(/stopped \(signal\)/);
    const status = await p.cli(['status', '--json']);
    const last = (JSON.parse(status.stdout) as { last_outcome: Record<string, unknown> }).last_outcome;
    expect(last).toMatchObject({ status: 'failed', reason: 'drift' });
    expect(last.advice).toMatch(/--drift overwrite/);
    await until(() => hook!.messages.length > 0);
    expect(hook.messages[0]).toMatchObject({ event: 'drift', details: { lists: ['house'] } });

    // The one-off choice resolves it: the service takes the YAML, de is translated.
    const over = await p.cli(['sync', '--drift', 'overwrite']);
    expect(over.code).toBe(0);
    expect(fs.existsSync(path.join(p.dir, 'out/de/b.txt'))).toBe(true);
  }, 90_000);

  it('an event not asked for is not sent; a manifest with both url and url_env is refused', async () => {
    hook = await receiver(0);
    p = await opsProject({
      manifest: { notify: { webhook: { url: hook.url, events: ['budget-reached'] } } },
    });
    p.write('a.txt', 'Fine.\n');
    expect((await p.cli(['sync'])).code).toBe(0);
    expect(hook.requests).toBe(0);
    const bad = await opsProject({
      manifest: { notify: { webhook: { url: hook.url, url_env: 'HOOK_URL' } } },
    });
    try {
      const v = await bad.cli(['validate']);
      expect(v.code).toBe(2);
      expect(v.stderr + v.stdout).toMatch(/either url or url_env/);
    } finally {
      await bad.close();
    }
  }, 90_000);

  it('a webhook URL from url_env that is not a URL: validate refuses it (naming the variable, not the value), sync refuses to start', async () => {
    p = await opsProject({ manifest: { notify: { webhook: { url_env: 'HOOK_URL' } } } });
    p.write('a.txt', 'Fine.\n');
    const notUrl = { HOOK_URL: 'hooks.example.com/T0KEN-9f8e7d6c5b4a' };
    const v = await p.cli(['validate'], notUrl);
    expect(v.code).toBe(2);
    expect(v.stdout).toMatch(
      /pipeline\.yaml:\d+:\d+: .*notify\.webhook\.url_env: the value of the environment variable HOOK_URL is not an http:\/\/ or https:\/\/ URL/,
    );
    const r = await p.cli(['sync'], notUrl);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/HOOK_URL is not an http/);
    expect(r.stderr + r.stdout + v.stderr + v.stdout).not.toContain('T0KEN-9f8e7d6c5b4a');
    expect(p.service.requests().filter((q) => q.upload)).toEqual([]);
    // Not set where validate runs (a pull request's CI): a warning; the run itself needs it.
    const unset = await p.cli(['validate'], { HOOK_URL: undefined });
    expect(unset.code).toBe(0);
    expect(unset.stdout).toMatch(
      /warning: notify\.webhook\.url_env: the environment variable HOOK_URL is not set/,
    );
    expect((await p.cli(['sync'], { HOOK_URL: undefined })).code).toBe(2);
  }, 90_000);

  it('an unreachable receiver never blocks: send returns at once, and the give-up is a warning without the URL', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      format: 'json',
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    hook = await receiver(0);
    const url = hook.url;
    await hook.close();
    hook = undefined;
    const n = new WebhookNotifier({
      url,
      events: ['drift'],
      pipeline: 'p.yaml',
      logger,
      attempts: 3,
      retryDelayMs: 10,
    });
    n.send('drift', 'the list de-docs changed on the service');
    // send() only queued the message: nothing has been tried, let alone given up, yet.
    expect(lines).toEqual([]);
    await n.flush();
    const warn = jsonLines(lines.join('')).find(
      (l) => l.msg === 'notification not delivered after 3 attempts',
    );
    expect(warn).toMatchObject({ event: 'drift', level: 40 });
    expect(lines.join('')).not.toContain('T0KEN-9f8e7d6c5b4a');
  });
});
