import type { Engine } from './engine/types.js';
import type { BadOutputKind } from './bad-output-kinds.js';
import type { GarbledAnswerKind } from './garbled-answers.js';
import type { StyleRow } from './store.js';

// Public handle of the local service: used by `locsync serve`, by `sync` (embedded mode), and by
// every integration test. The local-service work implements `startService` in ./index.ts.

export { BAD_OUTPUT_KINDS, type BadOutputKind } from './bad-output-kinds.js';
export { GARBLED_ANSWER_KINDS, type GarbledAnswerKind } from './garbled-answers.js';

export interface FaultSpec {
  /** Only requests matching these (method exact, path prefix) are affected; default: all API requests. */
  match?: { method?: string; path?: string };
  /** Next N matching requests answer this status (429, 500, 502, 503, 504, 529, 456, 403 ...). */
  status?: number;
  count?: number;
  /** Retry-After seconds sent with 429/529/503 faults. */
  retryAfter?: number;
  /** Next N matching requests: the connection is destroyed without any response. */
  drop?: number;
  /** Drop only after the request body was read (an upload the service may have accepted). */
  dropAfterBody?: boolean;
  /**
   * Next N matching requests are handled (an upload accepted, a text translated and billed) and
   * answered with their 2xx status, but the body is not the answer: `html` (default; a proxy's page),
   * `truncated` (the first half of the JSON), `empty`, or `other-json` (JSON without the answer's
   * fields). Only 2xx JSON answers: error answers and downloads are left as they are.
   */
  garble?: number;
  garbleAs?: GarbledAnswerKind;
  /** Added latency per matching request, milliseconds. */
  latencyMs?: number;
  /** Next N uploaded documents end in status `error`. */
  errorDocuments?: number;
  /** Translating documents report seconds_remaining = 2^27. */
  absurdSecondsRemaining?: boolean;
  /**
   * Next N downloads (matching requests for a result) announce the whole document in Content-Length,
   * send only `cutAfterBytes` of it and close the connection. The document counts as downloaded.
   */
  cutDownloads?: number;
  /** Bytes a cut download sends (default: half the document). */
  cutAfterBytes?: number;
  /**
   * The next `badOutputs` (default 1 when `badOutput` is set) accepted uploads that match end `done`
   * with a bad translation: `untranslated` (a copy of the source), `truncated` (the first half of the
   * file's bytes), `dropped-segments` (only the first quarter of the segments keep their text),
   * `wrong-language` (every segment in another language: Spanish, or Italian for a Spanish target).
   * Billed as a good one: what output checks (docs/qa.md) are for.
   */
  badOutput?: BadOutputKind;
  badOutputs?: number;
  /** Only uploads whose file name ends with this (".docx") get the bad output; default: any. */
  badOutputFor?: string;
  /** Each matching request is affected with this chance (0..1; counts are used only when it is). */
  probability?: number;
}

export interface RequestLogEntry {
  seq: number;
  time: string;
  method: string;
  path: string;
  status: number;
  /** Fault that shaped this response, if any ("status:429", "drop", "latency:200" ...). */
  fault?: string;
  /** For uploads that were accepted or rejected after the body was read. */
  upload?: { filename: string; sha256: string; bytes: number; target_lang: string; document_id?: string };
  /**
   * For text translations that were accepted: the texts, the characters billed (code points of the
   * texts as sent) and those of the context (never billed).
   */
  text?: { texts: number; characters: number; context_characters: number; target_lang: string };
  documentId?: string;
}

export interface ServiceOptions {
  host?: string; // default 127.0.0.1
  port?: number; // default 0 (any free port)
  /** Accepted key; when unset any non-empty key is accepted (a missing header is still 403). */
  authKey?: string;
  plan?: 'pro' | 'free';
  /** Persist lists, jobs and files under this folder (SQLite + files); default: in memory + temp files. */
  dataDir?: string;
  phrasebookPath?: string;
  /**
   * Style rule lists the service holds from its start, each under its own id (added when no list has
   * that id: a kept data folder's edits stay). See presetStyleList.
   */
  presetStyleLists?: StyleRow[];
  /** Load the language detector at start rather than on the first request without source_lang (`locsync serve`). */
  preloadDetection?: boolean;
  /** Scheduler: time a document waits queued / takes translating, seconds. */
  queueSeconds?: number;
  translateSeconds?: number;
  /** Documents translated concurrently. */
  workers?: number;
  /** Characters per billing period (GET /v2/usage); translations beyond it answer 456. Default: 10^12, no limit in practice. */
  characterLimit?: number;
  /** Documents done and not yet downloaded before uploads answer 429 (default 100). */
  maxUndownloaded?: number;
  /**
   * Upload size limits in bytes by lower-case input extension, merged over the defaults
   * (30 MB docx/doc/pptx/xlsx/pdf, 1 MB txt, 5 MB htm/html/srt, 10 MB xlf/xliff/images). Over the limit: 413.
   */
  uploadLimits?: Partial<Record<string, number>>;
  faults?: FaultSpec[];
  /**
   * Requests a second each key may send (every API request counts); beyond it the service answers
   * 429 with Retry-After, as the real service does. Default: no limit.
   */
  requestsPerSecond?: number;
  /** Translation engine to use instead of createEngine() (tests: stub engines, slow or failing ones). */
  engine?: Engine;
  /** Log requests with pino at this level; default silent. */
  logLevel?: string;
}

export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  /** Every request answered (or dropped) so far, in order. */
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** Add faults at run time (appended after the configured ones). */
  addFaults(...faults: FaultSpec[]): void;
  clearFaults(): void;
  close(): Promise<void>;
}
