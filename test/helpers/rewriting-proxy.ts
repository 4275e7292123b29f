import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceClient } from '../../src/api/client.js';

// A proxy on 127.0.0.1 port 0 in front of the local service that answers text requests as a hostile
// service would: each translation of a /v2/translate answer is rewritten by `rewrite` (given the
// text sent). Everything else passes as it came; the service's request log stays the record of what
// was billed.

/** A translation rewritten, from the service's answer and the text that was sent. */
export type Rewrite = (translation: string, sent: string) => string;

export interface RewritingProxy {
  url: string;
  close(): Promise<void>;
}

/** The texts of a text request's body (JSON, or a form with `text=` fields). */
function textsOf(body: string): string[] {
  try {
    return (JSON.parse(body) as { text?: string[] }).text ?? [];
  } catch {
    return new URLSearchParams(body).getAll('text');
  }
}

export async function rewritingProxy(target: string, rewrite: Rewrite): Promise<RewritingProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      const headers = { ...req.headers, host: new URL(target).host };
      delete headers['accept-encoding'];
      const up = http.request(`${target}${req.url ?? '/'}`, { method: req.method, headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          let out = Buffer.concat(body);
          if (req.url?.startsWith('/v2/translate') && answer.statusCode === 200) {
            const texts = textsOf(sent.toString('utf8'));
            const json = JSON.parse(out.toString('utf8')) as { translations: Array<{ text: string }> };
            json.translations.forEach((t, i) => (t.text = rewrite(t.text, texts[i] ?? '')));
            out = Buffer.from(JSON.stringify(json));
          }
          const h = { ...answer.headers, 'content-length': String(out.length) };
          delete h['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, h);
          res.end(out);
        });
      });
      up.on('error', () => res.destroy());
      up.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A client of the service through `url` (a proxy), with the test key and short retries. */
export function clientThrough(url: string, apiKey: string): ServiceClient {
  return new ServiceClient({
    baseUrl: url,
    apiKey,
    retry: { maxAttempts: 2, maxWaitMs: 1000, baseDelayMs: 5, maxDelayMs: 50 },
    rateLimit: { requestsPerSecond: 1000, concurrency: 8 },
  });
}
