// The retry loop of every service call: attempts through the rate limiter until one succeeds, a
// failure is not retryable (./retry.ts decides), attempts run out, or the next wait would exceed
// the total wait budget.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import type { RetryInfo } from './client-settings.js';
import { UploadMaybeAcceptedError } from './errors.js';
import { describeFailure, type Attempt } from './failures.js';
import type { AccountGate, RateLimiter } from './rate-limiter.js';
import { backoffDelay, decideRetry, type CallKind, type RetrySettings } from './retry.js';

/** What the loop works with: the client's settings, its limiter, and the account's gate if shared. */
export interface RetryContext {
  retry: RetrySettings;
  logger: Logger;
  onRetry: ((info: RetryInfo) => void) | undefined;
  limiter: RateLimiter;
  gate: AccountGate | undefined;
}

/** One call: what it is (for logs, errors and the retry rules) and what may stop it while it waits. */
export interface CallAttempts {
  method: string;
  path: string;
  kind: CallKind;
  signal: AbortSignal | undefined;
}

export async function withRetries<T>(
  ctx: RetryContext,
  { method, path, kind, signal }: CallAttempts,
  attemptOnce: () => Promise<Attempt<T>>,
): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    // Only awaited with a gate: a call aborted at once must not get a tick to slip into the queue.
    if (ctx.gate) {
      await ctx.gate.takeToken(signal);
      signal?.throwIfAborted();
    }
    const started = Date.now();
    const r = await ctx.limiter.run(attemptOnce, signal);
    const ms = Date.now() - started;
    if (r.ok) {
      ctx.logger.debug({ method, path, attempt, ms }, 'service call ok');
      return r.value;
    }
    const reason = describeFailure(r.failure);
    ctx.logger.debug({ method, path, attempt, ms, reason }, 'service call failed');
    const decision = decideRetry(kind, r.failure);
    if (!decision.retry) {
      if (decision.maybeAccepted) {
        const cause = r.error(attempt);
        throw new UploadMaybeAcceptedError(
          {
            method,
            path,
            status: cause.status,
            serverMessage: cause.serverMessage,
            code: cause.code,
            attempts: attempt,
            cause,
          },
          kind === 'upload'
            ? `${reason} after the document was sent: the service may have accepted (and will bill) it; not retried`
            : kind === 'text'
              ? `${reason} after the texts were sent: the service may have translated (and billed) them; not retried`
              : `${reason} after the request was sent: the service may have made it; not retried`,
        );
      }
      throw r.error(attempt);
    }
    if (attempt >= ctx.retry.maxAttempts) throw r.error(attempt);
    const retryAfter = r.failure.type === 'status' ? r.failure.retryAfterMs : undefined;
    const delayMs = retryAfter ?? backoffDelay(attempt, ctx.retry);
    // Told to slow down: every process sharing the account waits, not only this one.
    if (r.failure.type === 'status' && (r.failure.status === 429 || r.failure.status === 529))
      await ctx.gate?.pause(delayMs);
    if (waited + delayMs > ctx.retry.maxWaitMs) {
      throw r.error(
        attempt,
        `next retry in ${delayMs} ms would exceed the retry wait budget of ${ctx.retry.maxWaitMs} ms`,
      );
    }
    waited += delayMs;
    ctx.logger.warn({ method, path, attempt, delayMs, reason }, 'service call failed; retrying');
    ctx.onRetry?.({ method, path, attempt, delayMs, reason });
    await sleep(delayMs, undefined, signal ? { signal } : {});
  }
}
