// A missing, emptied or new state beside output folders that already hold translations is not
// "nothing was ever done": the planner sees every (file, target) as new and would upload, and pay
// for, documents whose translations are on disk. Before anything is uploaded, sync finds those
// outputs and refuses; `locsync state adopt` records them instead (or a backup is restored).

/** The parts of a planned action this check reads (src/sync/plan/types.ts TranslateAction). */
export interface NewWork {
  kind: string;
  reason?: string;
  ref: { mapping: string; file: string; target: string; output: string };
}

/**
 * The planned uploads of never-recorded outputs (reason new) whose output file exists already,
 * when the state has no record of any finished document: what an empty state would pay for again.
 * `outputExists` answers for an output path relative to the manifest folder.
 */
export function unrecordedOutputs<A extends NewWork>(
  actions: readonly A[],
  stateHasDoneJobs: boolean,
  outputExists: (output: string) => boolean,
): A[] {
  if (stateHasDoneJobs) return [];
  return actions.filter((a) => a.kind === 'translate' && a.reason === 'new' && outputExists(a.ref.output));
}

/** Where the state lives, as the refusal names it: a SQLite file, or a PostgreSQL URL (without password). */
export interface RefusedState {
  location: string;
  postgres: boolean;
}

/** The refusal, with the outputs found (a few) and the ways out. */
export function unrecordedOutputsMessage(
  found: readonly NewWork[],
  state: RefusedState,
  configArg: string,
): string {
  const shown = found.slice(0, 5).map((a) => `  ${a.ref.output} (from ${a.ref.mapping}/${a.ref.file})`);
  if (found.length > 5) shown.push(`  ... and ${found.length - 5} more`);
  const restore = state.postgres
    ? `  - restore the database from its backup (pg_restore), or import a state exported earlier into an empty database (locsync state import FILE${configArg}), or`
    : `  - restore a backup of the state (ls ${state.location}.backup-*; \`locsync state check\` one first), or`;
  return [
    `the state ${state.location} records no translation, but ${found.length} output(s) it would upload for exist already:`,
    ...shown,
    'Nothing was uploaded. The state was lost, emptied or is new beside existing translations. Either:',
    restore,
    `  - locsync state adopt${configArg}   (records each existing output newer than its source as done for the current settings, billing nothing; lists what it cannot vouch for)`,
  ].join('\n');
}
