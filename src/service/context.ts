// Per-request state the hooks share with the routes: the request log entry and the fault.
import type { FastifyRequest } from 'fastify';
import type { RequestLogEntry } from './types.js';
import type { RequestFault } from './faults.js';

export interface RequestContext {
  entry: RequestLogEntry & { finished: boolean };
  fault: RequestFault;
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
