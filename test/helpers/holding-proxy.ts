import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A proxy on 127.0.0.1 port 0 in front of a service: every request is forwarded as it came, except
// those whose body `hold` picks, which wait until the test releases them. A test can so stop a
// client with one chosen request on the wire and the others answered; the service's own request
// log stays the record of what was billed (a held request reaches it when released).

export interface HoldingProxy {
  url: string;
  /** Bodies of the requests held so far (released or not). */
  held(): string[];
  /** Forward the held requests now; resolves when the service answered them. */
  release(): Promise<void>;
  close(): Promise<void>;
}

export async function holdingProxy(target: string, hold: (body: string) => boolean): Promise<HoldingProxy> {
  const bodies: string[] = [];
  const waiting: Array<() => Promise<void>> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // The client may be gone (killed) by the time the answer comes: nothing to answer then.
      res.on('error', () => undefined);
      const forward = () =>
        new Promise<void>((resolve) => {
          const up = http.request(
            `${target}${req.url ?? '/'}`,
            { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
            (answer) => {
              if (!res.destroyed) res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
              answer.on('end', () => resolve());
            },
          );
          up.on('error', () => {
            res.destroy();
            resolve();
          });
          up.end(body);
        });
      const text = body.toString('utf8');
      if (!hold(text)) return void forward();
      bodies.push(text);
      waiting.push(forward);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held: () => [...bodies],
    release: async () => {
      await Promise.all(waiting.splice(0).map((forward) => forward()));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
