// The API key and document keys never reach a log line or an error, even when the service
// rejects the key.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { expect, it } from 'vitest';
import { AuthError } from '../../src/api/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { makeClient, useServiceAndTempDir, waitForDocument } from './helpers.js';

const fixture = useServiceAndTempDir();

function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { logger: createLogger({ level: 'trace', format: 'json', destination }), text: () => out };
}

it('a rejected key (403) appears in no log line and no part of the error', async () => {
  const wrongKey = 'wrong-key-c0ffee-5150';
  const log = capture();
  const client = makeClient(fixture.svc().url, { apiKey: wrongKey, logger: log.logger });
  const err = await client.listStyleRules().catch((e: unknown) => e);
  client.close();

  expect(err).toBeInstanceOf(AuthError);
  const e = err as AuthError;
  expect(e.status).toBe(403);
  expect(e.message).toMatch(/^GET \/v3\/style_rules: HTTP 403: Authorization failed/);
  // Logged as an error object too, the way a command would log it.
  log.logger.error({ err }, 'call failed');
  expect(log.text()).toContain('HTTP 403');
  for (const text of [
    log.text(),
    e.message,
    e.stack ?? '',
    inspect(err, { depth: 10 }),
    JSON.stringify(err),
  ]) {
    expect(text).not.toContain(wrongKey);
  }
});

it('a document key appears in no log line, even on failures', async () => {
  const log = capture();
  const client = makeClient(fixture.svc().url, {
    logger: log.logger,
    retry: { maxAttempts: 2, baseDelayMs: 5 },
  });
  const src = join(fixture.dir(), 'secret.txt');
  await writeFile(src, 'Some text.');
  const doc = await client.uploadDocument(src, { target_lang: 'DE' });
  fixture.svc().addFaults({ match: { path: `/v2/document/${doc.document_id}` }, status: 500, count: 1 });
  await waitForDocument(client, doc);
  const err = await client
    .downloadDocument(doc.document_id, doc.document_key, join(fixture.dir(), 'missing', 'x'))
    .catch((e: unknown) => e);
  client.close();
  log.logger.error({ err, doc }, 'something went wrong');

  expect(log.text()).toContain(doc.document_id);
  expect(log.text()).toContain('retrying');
  expect(log.text()).not.toContain(doc.document_key);
  expect(inspect(err, { depth: 10 })).not.toContain(doc.document_key);
});
