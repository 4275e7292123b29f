import type { NewJob } from '../../state/types.js';
import type { ResavedAction, ReuseAction, TranslateAction } from '../plan/types.js';

// A sync claiming a unit and `state adopt` vouching for an output record the same row for one
// planned action, so that the next plan finds an adopted output exactly as it finds a translated one.

/** The job row of a planned action in run `runId`: its output, source content and settings. */
export function jobRowOf(a: TranslateAction | ReuseAction | ResavedAction, runId: number): NewJob {
  return {
    mapping: a.ref.mapping,
    rel_path: a.ref.file,
    sha256: a.source.sha256,
    target_lang: a.ref.target,
    fingerprint: a.settings.fingerprint,
    base_fingerprint: a.settings.baseFingerprint,
    output_path: a.ref.output,
    run_id: runId,
    request: JSON.stringify(a.settings.request),
  };
}
