import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on 127.0.0.1 that keeps every JSON message it is sent (answers 204).

export interface HookReceiver {
  url: string;
  messages: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function hookReceiver(): Promise<HookReceiver> {
  const messages: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      messages.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
