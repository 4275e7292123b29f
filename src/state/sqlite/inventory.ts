import type { FileInventory, FileRecord, HashedFile, ListedFile, MappingSnapshot } from '../file-types.js';
import type { RunLog, RunOutcome } from '../run-types.js';

// The file inventory and the run log on SQLite: the state interface's asynchronous calls, answered
// by the store's synchronous statements.

/** The statements of the SQLite store behind the file inventory. */
export interface FileRows {
  getFile(mapping: string, relPath: string): FileRecord | undefined;
  filesOf(mapping: string): Map<string, ListedFile>;
  filesIn(mapping: string, folders: readonly string[]): Map<string, ListedFile>;
  filesAfter(mapping: string, after: string | undefined, limit: number): ListedFile[];
  shasOf(mapping: string): Map<string, string>;
  shasOfEach(mapping: string, relPaths: readonly string[]): Map<string, string>;
  putFile(rec: HashedFile): void;
  putFiles(recs: readonly HashedFile[]): void;
  deleteFile(mapping: string, relPath: string): void;
  verifyFiles(mapping: string, sig: number, relPaths: readonly string[]): void;
  mappingSnapshot(mapping: string): MappingSnapshot | undefined;
  setMappingSnapshot(mapping: string, snap: MappingSnapshot, files: number): void;
}

/** Records per page of FileInventory.listedPages. */
const LISTED_PAGE = 4096;

export class SqliteFileInventory implements FileInventory {
  constructor(private readonly rows: FileRows) {}
  async get(mapping: string, relPath: string): Promise<FileRecord | undefined> {
    return this.rows.getFile(mapping, relPath);
  }
  async listed(mapping: string): Promise<Map<string, ListedFile>> {
    return this.rows.filesOf(mapping);
  }
  async listedIn(mapping: string, folders: readonly string[]): Promise<Map<string, ListedFile>> {
    return this.rows.filesIn(mapping, folders);
  }
  async *listedPages(mapping: string): AsyncIterable<ListedFile[]> {
    // A page per query (keyset on the primary key): no statement stays open across the caller's awaits.
    for (let after: string | undefined; ;) {
      const page = this.rows.filesAfter(mapping, after, LISTED_PAGE);
      if (page.length) yield page;
      if (page.length < LISTED_PAGE) return;
      after = (page[page.length - 1] as ListedFile)[0];
    }
  }
  async contents(mapping: string): Promise<Map<string, string>> {
    return this.rows.shasOf(mapping);
  }
  async contentsOf(mapping: string, relPaths: readonly string[]): Promise<Map<string, string>> {
    return this.rows.shasOfEach(mapping, relPaths);
  }
  async put(rec: HashedFile): Promise<void> {
    this.rows.putFile(rec);
  }
  async putAll(recs: readonly HashedFile[]): Promise<void> {
    this.rows.putFiles(recs);
  }
  async remove(mapping: string, relPath: string): Promise<void> {
    this.rows.deleteFile(mapping, relPath);
  }
  async verify(mapping: string, sig: number, relPaths: readonly string[]): Promise<void> {
    this.rows.verifyFiles(mapping, sig, relPaths);
  }
  async snapshot(mapping: string): Promise<MappingSnapshot | undefined> {
    return this.rows.mappingSnapshot(mapping);
  }
  async setSnapshot(mapping: string, snap: MappingSnapshot, files: number): Promise<void> {
    this.rows.setMappingSnapshot(mapping, snap, files);
  }
}

/** The statements of the SQLite store behind the run log. */
export interface RunRows {
  startRun(command: string): number;
  finishRun(
    id: number,
    status: RunOutcome['status'],
    counts: Record<string, number>,
    billed: number,
    reason?: RunOutcome['reason'],
  ): void;
}

export class SqliteRunLog implements RunLog {
  constructor(private readonly rows: RunRows) {}
  async start(command: string): Promise<number> {
    return this.rows.startRun(command);
  }
  async finish(
    id: number,
    outcome: RunOutcome,
    counts: Record<string, number>,
    billed: number,
  ): Promise<void> {
    this.rows.finishRun(id, outcome.status, counts, billed, outcome.reason);
  }
}
