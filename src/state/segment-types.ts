// The segment memory of method: segments: translated segments by key and the text requests that
// bought them, and the claims of the segments several workers send.
// Part of the state interface (./types.ts).
import type { JobLeverageCounts, LeverageRow, LeverageScope } from './leverage-ledger.js';
import type { Recalled, SegmentOrigin } from './memory-types.js';

/** One translated segment, as the segment memory keeps it (src/segments/memory-key.ts makes `key`). */
export interface SegmentMemoryRow {
  /** Digest of the normalised tagged source, both languages and the translation settings. */
  key: string;
  /** The source segment as sent: text with inline tags (src/documents/tagged.ts). */
  source: string;
  source_lang: string | null;
  target_lang: string;
  /** Digest of the settings that change a translation (style list content, glossary, formality ...). */
  settings: string;
  /** The translated segment with its inline tags. */
  translation: string;
  origin: SegmentOrigin;
  run_id: number | null;
  /** The source document it was translated in (relative to the manifest), for an export. */
  document?: string | null;
}

/** A text request (POST /v2/translate) as recorded before it is sent: billed once the service takes it. */
export interface TextRequestRecord {
  id: number;
  job_id: number;
  run_id: number | null;
  texts: number;
  characters: number;
  /** sent: recorded, no answer yet (a crash leaves it so: maybe billed); answered; lost: maybe billed. */
  state: 'sent' | 'answered' | 'lost';
  sent_at: string;
  answered_at: string | null;
}

/** A text request about to be sent: its job, its run, how many texts and characters it bills. */
export interface NewTextRequest {
  jobId: number;
  runId: number;
  texts: number;
  characters: number;
  /**
   * The request this is the job's share of: every document's share of one request packed across
   * documents has the same, so the ledger counts the request once.
   */
  request: string;
}

/** One share of an answered text request: its record and the translations it brought. */
export interface AnsweredShare {
  id: number;
  rows: readonly SegmentMemoryRow[];
}

/**
 * The segment memory (method: segments, docs/segments.md): translated segments by key, and the text
 * requests that bought them, recorded before each is sent. Its only writer besides the review of
 * segments (origin reviewed) is the segment path (src/segments).
 */
export interface SegmentMemory {
  /** Translations of these keys that are remembered (a reviewed one before the service's). */
  lookup(keys: readonly string[]): Promise<Map<string, string>>;
  /** The same, with where each came from (reviewed before imported before the service's). */
  recall(keys: readonly string[]): Promise<Map<string, Recalled>>;
  /** Remember translations (a person's reviewed ones, or the service's outside a request). */
  put(rows: readonly SegmentMemoryRow[]): Promise<void>;
  /**
   * The service's translations of these keys are forgotten (a person's and imported ones stay): an
   * output made with them failed the checks, so they are bought again, not written again.
   */
  forgetAnswers(keys: readonly string[]): Promise<void>;
  /**
   * A text request is about to be sent: every job's share of it (one request packed across
   * documents, src/sync/segments/batch-pool.ts) recorded first, in one transaction (answers their
   * ids, in order).
   */
  textRequestsSent(shares: readonly NewTextRequest[]): Promise<number[]>;
  /**
   * Its answer came: every share's translations remembered and every share marked answered, in
   * one transaction.
   */
  textRequestsAnswered(shares: readonly AnsweredShare[]): Promise<void>;
  /** Its answer was lost (the service may have translated and billed it): its shares kept as lost. */
  textRequestsLost(ids: readonly number[]): Promise<void>;
  /**
   * It is not sent after all: every attempt so far was surely not taken and uploads stopped before
   * the next (it waited for its retry). Its shares' records are removed: nothing of it was billed.
   */
  textRequestsNotSent(ids: readonly number[]): Promise<void>;
  /** Requests of a job sent by an earlier run and never answered (it crashed): marked lost, answered. */
  unansweredOf(jobId: number): Promise<TextRequestRecord[]>;
  /** Characters of a job's text requests that may have been billed (every one recorded as sent). */
  billedOf(jobId: number): Promise<number>;
  /**
   * A job of run `runId` has every translation: where its segments came from is recorded
   * (./leverage-ledger.ts; what its answered requests bought is counted from them).
   */
  recordLeverage(jobId: number, runId: number, counts: JobLeverageCounts): Promise<void>;
  /** The leverage rows of one run, or since a moment (the summary's and the report's columns). */
  leverageRows(scope: LeverageScope): Promise<LeverageRow[]>;
}

/**
 * Segments being sent by the workers of one pipeline (PostgreSQL), by memory key: a worker claims
 * the keys it is about to send and gives them back once their answers are in the segment memory (or
 * the request failed). A claim holds while its worker is alive (its heartbeat, as for units of work):
 * a dead worker's claims are taken over.
 */
export interface SegmentClaims {
  /** Claim these keys for this worker: answers those another live worker holds (key → worker id). */
  claim(keys: readonly string[]): Promise<Map<string, string>>;
  /** Of these keys, those another live worker holds now (key → worker id). */
  heldElsewhere(keys: readonly string[]): Promise<Map<string, string>>;
  /** Give these keys back (this worker's claims only). */
  release(keys: readonly string[]): Promise<void>;
}
