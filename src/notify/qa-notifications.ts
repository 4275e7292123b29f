import type { SyncEvents } from '../sync/events.js';
import type { WebhookNotifier } from './webhook.js';

// The `qa-failed` notification (docs/qa.md): a run whose downloads failed the output checks (not
// delivered, kept in the quarantine) says which, once, at its end. Outputs failed by an earlier run
// and not bought again are not news: only this run's checks count.

/** Outputs named in one message at most (the rest are counted). */
const MAX_LISTED = 20;

export function notifyQaFailures(events: SyncEvents, notifier: WebhookNotifier, command: string): void {
  let failed: Array<{ mapping: string; file: string; target: string; output: string; findings: string[] }> =
    [];
  events.on('run:start', () => (failed = []));
  events.on('job:qa', (e) => {
    if (e.outcome === 'failed')
      failed.push({
        mapping: e.mapping,
        file: e.file,
        target: e.target,
        output: e.output,
        findings: e.findings,
      });
  });
  events.on('run:summary', (s) => {
    if (s.dryRun || failed.length === 0) return;
    notifier.send(
      'qa-failed',
      `locsync ${command} run #${s.runId}: ${failed.length} translation(s) failed the output checks and were not delivered (kept in the quarantine); see locsync status`,
      { run: s.runId, count: failed.length, outputs: failed.slice(0, MAX_LISTED) },
    );
    failed = [];
  });
}
