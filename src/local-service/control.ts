// Control endpoints for processes that cannot call the RunningService handle (a `locsync serve`
// in another process): request log, faults, health. See docs/local-service.md.
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../version.js';
import { parseFaultList, type FaultBook } from './faults.js';
import type { RequestLog } from './request-log.js';
import type { Store } from './store.js';

export function registerControl(
  app: FastifyInstance,
  o: { log: RequestLog; faults: FaultBook; store: Store; plan: 'pro' | 'free' },
): void {
  app.get('/_locsync/health', async () => ({
    ok: true,
    version: VERSION,
    plan: o.plan,
    documents: o.store.counts(),
    rss: process.memoryUsage.rss(),
  }));
  app.get('/_locsync/requests', async () => ({ requests: o.log.list() }));
  app.delete('/_locsync/requests', async (_req, reply) => {
    o.log.clear();
    return reply.code(204).send();
  });
  app.get('/_locsync/faults', async () => ({ faults: o.faults.describe() }));
  app.post('/_locsync/faults', async (req) => {
    o.faults.add(...parseFaultList(req.body));
    return { faults: o.faults.describe() };
  });
  app.delete('/_locsync/faults', async (_req, reply) => {
    o.faults.clear();
    return reply.code(204).send();
  });
}
