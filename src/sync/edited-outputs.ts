import fs from 'node:fs';
import path from 'node:path';
import type { JobLedger, WrittenRecordRow } from '../state/types.js';
import { segmentConflicts, type SegmentConflict } from './segments-written.js';
import type { PlannedReview } from './segments/planned-review.js';
import { TimeSlices } from '../util/time-slices.js';
import { besidePath, conditionByStat, conditionOfBytes, type OutputCondition } from './run/edited-output.js';
import { outputFile } from '../manifest/in-place-output.js';

// The outputs people have edited, as `status` and `plan` list them: an output that differs from
// what its latest translation wrote (./run/edited-output.ts). With a new translation beside it, the
// pair is a conflict until `locsync outputs keep|take-new` resolves it.

export interface EditedOutput {
  /** The output, relative to the manifest folder. */
  output: string;
  /** The new translation beside it (relative to the manifest folder): a conflict; null: none. */
  new_translation: string | null;
  /** What to do about it. */
  advice: string;
  /** `plan`: a new translation of it is planned (it will be written beside the edit). */
  new_translation_planned?: boolean;
  /** `plan`, the segment path: a new translation is written over it, the person's wording kept in it. */
  written_over_planned?: boolean;
  /** `plan`, the segment path: the reviewed segments whose source changes (their wording stays). */
  segment_conflicts_planned?: SegmentConflict[];
  /**
   * The segment path (./reviewed-segments.ts): reviewed segments whose source changed; the new
   * machine translation is in the output. A conflict until `locsync outputs take-new` accepts it.
   */
  segment_conflicts?: SegmentConflict[];
}

/**
 * An output's condition as its record says: stat'ed synchronously, as the source walk does (one stat
 * each for 100,000 outputs; awaited one at a time on the thread pool they took 4.5 s of a 6 s
 * `status`, idle), its bytes read only when the stat cannot tell.
 */
async function outputOfRecord(abs: string, rec: WrittenRecordRow): Promise<OutputCondition> {
  if (!rec.output_sha256) return 'unrecorded';
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    st = undefined; // unreadable: as missing, as outputCondition has it
  }
  return conditionOfBytes(abs, rec, conditionByStat(st, rec));
}

/** ` -c <manifest>` in advice, unless it is the default. */
const cfgArg = (cfg: string) => (cfg === 'pipeline.yaml' ? '' : ` -c ${cfg}`);

/** `stateFolder`: the folder of the state (the segment path's records of reviewed segments). */
export async function editedOutputs(
  ledger: JobLedger,
  base: string,
  config: string,
  stateFolder: string,
): Promise<EditedOutput[]> {
  const edited: EditedOutput[] = [];
  const bySegment = segmentConflicts(stateFolder);
  const slices = new TimeSlices();
  for (const rec of await ledger.writtenRecords()) {
    if (slices.due()) await slices.yield();
    const abs = path.resolve(base, outputFile(rec.output_path));
    if ((await outputOfRecord(abs, rec)) !== 'edited') continue;
    const beside = besidePath(rec.output_path);
    const conflict = fs.existsSync(path.resolve(base, beside));
    edited.push({
      output: rec.output_path,
      new_translation: conflict ? beside : null,
      advice: conflict
        ? `conflict: the source changed since the edit; \`locsync outputs keep ${rec.output_path}${cfgArg(config)}\` (the edit wins) or \`locsync outputs take-new ${rec.output_path}${cfgArg(config)}\` (the new translation wins, the edit kept as a backup)`
        : 'edited by a person: kept; a new translation of a changed source is written beside it',
    });
  }
  // The segment path's conflicts join their output's entry (the output is edited against its record,
  // which is the file beside it), or make one (a wording an earlier delivery took in).
  for (const [output, list] of [...bySegment].sort(([a], [b]) => a.localeCompare(b))) {
    const beside = besidePath(output);
    const hasBeside = fs.existsSync(path.resolve(base, beside));
    const entry = edited.find((e) => e.output === output);
    const n = `${list.length} reviewed segment${list.length === 1 ? '' : 's'}`;
    const advice = hasBeside
      ? `conflict: the source of ${n} changed; the output keeps the person's wording, the new machine translation is in ${beside}: \`locsync outputs keep ${output}${cfgArg(config)}\` (the person's wording stands, reviewed against the new source) or \`locsync outputs take-new ${output}${cfgArg(config)}\` (the machine's translation wins, the person's version kept as a backup)`
      : `conflict: the source of ${n} changed, the new machine translation is in the output; check ${list.length === 1 ? 'it' : 'them'} (edit the output if needed), then \`locsync outputs take-new ${output}${cfgArg(config)}\``;
    const e: EditedOutput = {
      output,
      new_translation: hasBeside ? beside : null,
      segment_conflicts: list,
      advice,
    };
    if (entry) Object.assign(entry, e);
    else edited.push(e);
  }
  return edited;
}

/**
 * `plan`: marks the edited outputs a new translation is planned for (`outputs`: the planned ones),
 * and says what the segment path's deliveries will do with a person's work (`reviews`, by output:
 * ./segments/planned-review.ts), listing the outputs whose reviewed segments' source changes.
 */
export function withPlanned(
  edited: readonly EditedOutput[],
  outputs: ReadonlySet<string>,
  reviews: ReadonlyMap<string, PlannedReview> = new Map(),
): EditedOutput[] {
  const out: EditedOutput[] = edited.map((e) => ({ ...e, new_translation_planned: outputs.has(e.output) }));
  for (const [output, r] of reviews) {
    let e = out.find((x) => x.output === output);
    if (!e && !r.beside && !r.conflicts.length) continue;
    if (!e) {
      e = {
        new_translation_planned: r.beside,
        output,
        new_translation: null,
        advice:
          "holds a person's wording whose source changes: it stays in the output, the new machine translation goes beside it",
      };
      out.push(e);
    }
    const found: EditedOutput = e;
    found.new_translation_planned = r.beside;
    if (!r.beside) {
      found.written_over_planned = true;
      // Said of an edit only: the generic advice ("written beside it") is not what this sync does.
      if (!found.new_translation && !found.segment_conflicts?.length)
        found.advice =
          "edited by a person: this sync takes the person's wording in as reviewed and writes the changed parts around it";
    }
    if (r.conflicts.length) found.segment_conflicts_planned = r.conflicts;
  }
  return out;
}

/** The conflicts among them (status exits 1 while there is one). */
export const conflicts = (edited: readonly EditedOutput[]): EditedOutput[] =>
  edited.filter((e) => e.new_translation !== null || !!e.segment_conflicts?.length);

/** The lines `status` and `plan` print (none when nothing was edited). */
export function formatEdited(edited: readonly EditedOutput[]): string[] {
  if (edited.length === 0) return [];
  const open = conflicts(edited).length;
  const out = [
    `Outputs edited by people (${edited.length}; kept, never overwritten${open ? `; ${open} in conflict with a new translation` : ''}):`,
  ];
  for (const e of edited) {
    const planned = e.new_translation_planned
      ? ` (a new translation is planned: written beside it, as ${besidePath(e.output)})`
      : e.written_over_planned
        ? " (a new translation is planned: written over it, the person's wording kept in it)"
        : '';
    out.push(`  ${e.output}${e.new_translation ? ` <> ${e.new_translation}` : ''}${planned}`);
    for (const c of e.segment_conflicts_planned ?? [])
      out.push(
        `    ${c.where}: its source changes: "${c.source_before}" → "${c.source ?? ''}"; the person's wording "${c.reviewed}" stays in the output, the new machine translation goes beside it`,
      );
    for (const c of e.segment_conflicts ?? []) {
      out.push(`    ${c.where}: reviewed "${c.reviewed}" (source was "${c.source_before}")`);
      if (c.machine !== undefined || c.source !== undefined)
        out.push(
          `      new machine translation${c.machine !== undefined ? ` "${c.machine}"` : ' (bought by the sync)'}${c.source !== undefined ? ` (source now "${c.source}")` : ''}`,
        );
    }
    out.push(`    ${e.advice}`);
  }
  return out;
}
