// Outputs whose wording a person gave after their delivery (`locsync xliff import`, docs/xliff.md),
// waiting for the next sync to write them from the memory. Kept in the state, so that on a state
// several machines share every worker's sync writes them, not only the importing machine's.
// Part of the state interface (./types.ts).

/** One output waiting for its imported wording. */
export interface ImportedWording {
  mapping: string;
  /** Output path relative to the manifest folder ('/' separators): one row per output. */
  output: string;
  /** The output's latest done job when the wording was imported: a later delivery settles it. */
  job_id: number;
}

export interface ImportedWordingStore {
  /** Every output noted, in output order. */
  list(): Promise<ImportedWording[]>;
  /** Notes outputs (each replacing its note before), in one transaction. */
  note(rows: readonly ImportedWording[]): Promise<void>;
  /** Drops the notes of these outputs when they still name that job (settled: delivered since). */
  settle(rows: readonly ImportedWording[]): Promise<void>;
}
