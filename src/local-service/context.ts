// Per-request state the hooks share with the routes: the request log entry and the fault.
import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { RequestLogEntry } from './types.js';
import type { RequestFault } from './faults.js';
import type { MockSession } from './mock-sessions.js';

export interface RequestContext {
  entry: RequestLogEntry & { finished: boolean };
  fault: RequestFault;
  /** The official mock's session the request belongs to (mock-server-session header). */
  session?: MockSession;
}

const contexts = new WeakMap<object, RequestContext>();

export function setContext(req: FastifyRequest, ctx: RequestContext): void {
  contexts.set(req.raw, ctx);
}

export function getContext(req: FastifyRequest): RequestContext | undefined {
  return contexts.get(req.raw);
}

/** Destroys the connection with no answer; the request log records status 0. */
export function dropConnection(req: FastifyRequest): void {
  const ctx = contexts.get(req.raw);
  if (ctx && !ctx.entry.finished) {
    ctx.entry.status = 0;
    ctx.entry.finished = true;
  }
  req.raw.socket?.destroy();
}

/**
 * Read what is left of a request's body and throw it away. An injected status is answered only once
 * the body has arrived, as a real front end that has taken the upload would: answering while the
 * client is still sending races its write (EPIPE), and the client could not tell a 456 from a
 * connection that broke before its document left.
 */
export async function discardBody(req: FastifyRequest): Promise<void> {
  const raw = req.raw;
  const length = Number(raw.headers['content-length'] ?? 0);
  if ((length <= 0 && raw.headers['transfer-encoding'] === undefined) || raw.readableEnded) return;
  raw.resume();
  await finished(raw).catch(() => undefined); // a client that gives up is not our concern here
}
