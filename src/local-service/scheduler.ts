// Document job lifecycle: queued -> translating -> done | error.
// A job waits queueSeconds, then waits for one of `workers` slots, then translates (the engine runs)
// for at least translateSeconds. Engine failures end the job in `error`; the service never crashes.
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { isMinimumBilled } from '../documents/format-registry.js';
import type { Engine } from './engine/types.js';
import { spoilOutput } from './bad-outputs.js';
import { baseLanguage } from '../documents/language-tag.js';
import type { JobRow, Store } from './store.js';
import type { DocumentFiles } from './files.js';

/** How long close() waits for running translations to stop. */
const CLOSE_GRACE_MS = 5000;

export interface SchedulerOptions {
  store: Store;
  engine: Engine;
  files: DocumentFiles;
  queueMs: number;
  translateMs: number;
  workers: number;
  onError?: (err: unknown, job: JobRow) => void;
  /** A document is done (billed_characters set): usage is charged here. */
  onDone?: (job: JobRow) => void;
}

function checkLanguagesDiffer(source: string, target: string): void {
  if (baseLanguage(source) === baseLanguage(target))
    throw new Error(
      `Source and target language are equal (${source.toUpperCase()} -> ${target.toUpperCase()}).`,
    );
}

/** Billed characters of a finished document: the engine's count, at least 50,000 for office/pdf. */
export function billedCharacters(ext: string, characters: number): number {
  return isMinimumBilled(ext) ? Math.max(characters, MINIMUM_BILLED_CHARACTERS) : characters;
}

export class Scheduler {
  private readonly ready: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Map<string, AbortController>();
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly o: SchedulerOptions) {}

  get queueMs(): number {
    return this.o.queueMs;
  }

  /** A new (queued) job: ready once its queue time is over. */
  enqueue(job: Pick<JobRow, 'document_id' | 'queued_until'>): void {
    const wait = Math.max(0, job.queued_until - Date.now());
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.ready.push(job.document_id);
      this.pump();
    }, wait);
    this.timers.add(t);
  }

  /** After a restart: jobs that were translating start again first, queued ones keep their place. */
  resume(): void {
    for (const job of this.o.store.jobsIn('translating')) this.ready.push(job.document_id);
    for (const job of this.o.store.jobsIn('queued')) this.enqueue(job);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.o.workers && this.ready.length > 0) {
      const id = this.ready.shift()!;
      const job = this.o.store.getJob(id);
      if (!job || (job.status !== 'queued' && job.status !== 'translating')) continue;
      const ac = new AbortController();
      this.running.set(id, ac);
      const p = this.translate(job, ac.signal).finally(() => {
        this.running.delete(id);
        this.inflight.delete(p);
        this.pump();
      });
      this.inflight.add(p);
    }
  }

  private async translate(job: JobRow, signal: AbortSignal): Promise<void> {
    const { store, engine, files } = this.o;
    const started = Date.now();
    job.status = 'translating';
    job.started_at = started;
    job.translate_until = started + (job.translate_ms ?? this.o.translateMs);
    store.updateJob(job);
    const output = files.outputPath(job);
    try {
      if (job.fail_message) throw new Error(job.fail_message);
      if (job.source_lang) checkLanguagesDiffer(job.source_lang, job.target_lang);
      const result = await Promise.resolve().then(() =>
        engine.translateDocument(
          { path: files.inputPath(job), ext: job.ext, filename: job.filename },
          { path: output, ext: job.out_ext },
          {
            targetLang: job.target_lang,
            ...(job.source_lang ? { sourceLang: job.source_lang } : {}),
            ...(job.formality ? { formality: job.formality } : {}),
            ...(job.style ? { style: job.style } : {}),
            ...(job.glossary ? { glossary: job.glossary } : {}),
          },
          signal,
        ),
      );
      // Without source_lang the engine tells the language it found: the real service refuses the
      // document then too.
      if (!job.source_lang && result.detectedSourceLang)
        checkLanguagesDiffer(result.detectedSourceLang, job.target_lang);
      if (job.bad_output)
        await spoilOutput(
          job.bad_output,
          { path: files.inputPath(job), ext: job.ext },
          { path: output, ext: job.out_ext },
          job.target_lang.toLowerCase(),
        );
      const left = job.translate_until - Date.now();
      if (left > 0) await sleep(left, undefined, { signal });
      if (signal.aborted) return; // closing: the job stays `translating` and resumes after a restart
      job.status = 'done';
      job.billed_characters = billedCharacters(job.ext, Math.max(0, Math.round(result.characters)));
      store.updateJob(job);
      this.o.onDone?.(job);
    } catch (err) {
      if (signal.aborted || this.closed) return;
      this.o.onError?.(err, job);
      job.status = 'error';
      job.message =
        (err instanceof Error ? err.message : String(err)) || 'The document could not be translated.';
      try {
        store.updateJob(job);
      } catch {
        /* store closed */
      }
      await rm(output, { force: true }).catch(() => {});
      await rm(files.inputPath(job), { force: true }).catch(() => {});
    }
  }

  /** Stops timers and running translations (they stay `translating` in the store). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const ac of this.running.values()) ac.abort();
    // An engine that ignores the abort signal must not keep the service from closing.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS))),
    ]);
    clearTimeout(timer);
  }
}
