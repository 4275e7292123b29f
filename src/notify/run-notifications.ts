import type { SyncEvents } from '../sync/events.js';
import { notifyQaFailures } from './qa-notifications.js';
import type { WebhookNotifier } from './webhook.js';

// Which moments of a sync or watch run are worth a message, read from its events: the run ended
// with failed documents, it was interrupted, uploads stopped because the budget was reached, a style
// list drifted on the service.

/** Send the run's notifications through `notifier` while `events` flow. */
export function notifyRunEvents(events: SyncEvents, notifier: WebhookNotifier, command: string): void {
  let stopped: string | undefined;
  events.on('run:start', () => (stopped = undefined));
  notifyQaFailures(events, notifier, command);
  events.on('uploads:stopped', (e) => {
    stopped = e.reason;
    if (e.kind === 'budget')
      notifier.send('budget-reached', `locsync ${command}: uploads stopped: ${e.reason}`, {
        reason: e.reason,
      });
  });
  events.on('styles:drift', (e) =>
    notifier.send(
      'drift',
      `locsync ${command}: style list(s) ${e.lists.join(', ')} changed on the service; their targets are not translated until it is resolved (locsync plan shows the change)`,
      { lists: e.lists, messages: e.messages },
    ),
  );
  events.on('source:missing', (e) =>
    notifier.send('source-missing', `locsync ${command}: mapping ${e.mapping}: ${e.message}`, {
      mapping: e.mapping,
      message: e.message,
    }),
  );
  events.on('run:summary', (s) => {
    if (s.dryRun) return;
    // SIGTERM is how a watch ends: only one that leaves work unfinished is worth a message.
    if (s.interrupted && command === 'watch' && s.left === 0) return;
    if (s.interrupted) {
      notifier.send(
        'run-interrupted',
        `locsync ${command} run #${s.runId} was interrupted; run it again to resume (nothing is paid twice)`,
        { run: s.runId, reason: stopped, left: s.left },
      );
      return;
    }
    if (s.failed.length)
      notifier.send(
        'run-failed',
        `locsync ${command} run #${s.runId}: ${s.failed.length} document(s) failed; see locsync status for what to do`,
        {
          run: s.runId,
          failed: s.failed.slice(0, 20).map((f) => ({
            mapping: f.mapping,
            file: f.file,
            target: f.target,
            kind: f.kind,
            error: f.error,
            will_retry: f.willRetry,
          })),
          ...(stopped ? { reason: stopped } : {}),
        },
      );
  });
}
