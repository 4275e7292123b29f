// The output checks' last verdict per output (src/qa, docs/qa.md).
// Part of the state interface (./types.ts).

/** The output checks' last verdict on one output (src/qa, docs/qa.md). */
export interface QaResultRow {
  /** Output path relative to the manifest folder ('/' separators): one row per output. */
  output_path: string;
  /** The job whose download was checked (0: checked by `locsync check`, no job). */
  job_id: number;
  mapping: string;
  rel_path: string;
  target_lang: string;
  outcome: 'pass' | 'flagged' | 'failed';
  /** JSON array of the findings: { check, message, where[] }. */
  findings: string;
  checked_at: string;
}

export interface QaResultStore {
  /** Records the verdict on an output (replacing the one before). */
  record(row: QaResultRow): Promise<void>;
  /** The outputs whose last verdict is one of `outcomes`, by output path. */
  list(outcomes: ReadonlyArray<QaResultRow['outcome']>): Promise<QaResultRow[]>;
}
