// The default state backend (SQLite, src/state/sqlite): the sync engine opens it through the state
// interface (src/state/types.ts); the read-only commands (status, report) query it directly.

export { assertLocalFilesystem, openState, StateStore } from './sqlite/store.js';
export { SCHEMA_VERSION } from './sqlite/migrations.js';
export type {
  DoneIndexRow,
  FileRecord,
  JobRecord,
  JobStatus,
  ListedFile,
  MappingSnapshot,
  NewJob,
  RunRecord,
} from './types.js';
