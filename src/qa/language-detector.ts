import { Worker } from 'node:worker_threads';

// eld's detector (./language.ts) in a worker thread of its own. Loading its database costs about
// 0.3 s of CPU and 80 MB, all of it synchronous: on the run's own thread that stalled every upload,
// answer and timer of the run for as long (issue 51). In a worker it loads on the other core while
// the run goes on, and `prepareLanguageCheck` starts it as soon as a run knows it will translate, so
// that the first output's check finds it loaded. Where no worker can be started, it loads here.

/** What the language check needs of one detection. */
export interface Detection {
  language: string;
  reliable: boolean;
  scores: Record<string, number>;
}

export interface LanguageDetector {
  detect(text: string): Promise<Detection>;
  /** The ISO 639-1 codes eld knows. */
  languages: ReadonlySet<string>;
}

interface Eld {
  detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> };
  info(): { Languages: Record<number, string> };
}

// The worker's code, evaluated as a script: it imports eld by the URL the run resolved (a worker
// evaluated from a string resolves no package names), then answers one message per text.
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.eld).then(({ eld }) => {
  parentPort.postMessage({ languages: Object.values(eld.info().Languages) });
  parentPort.on('message', ({ id, text }) => {
    const r = eld.detect(text);
    parentPort.postMessage({ id, language: r.language, reliable: r.isReliable(), scores: r.getScores() });
  });
}, (err) => parentPort.postMessage({ failed: String(err && err.message || err) }));
`;

function inProcess(): Promise<LanguageDetector> {
  return import('eld/extrasmall').then(({ eld }) => {
    const e = eld as unknown as Eld;
    return {
      languages: new Set(Object.values(e.info().Languages)),
      detect: async (text: string) => {
        const r = e.detect(text);
        return { language: r.language, reliable: r.isReliable(), scores: r.getScores() };
      },
    };
  });
}

type Answer = { id: number } & Detection;
type Message = Answer | { languages: string[] } | { failed: string };

interface Loading {
  ready: Promise<LanguageDetector>;
  /** Keeps the process alive until the detector is loaded (a caller waits for it). */
  hold: () => void;
}

function inWorker(): Loading {
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    workerData: { eld: import.meta.resolve('eld/extrasmall') },
  });
  // Idle, the worker keeps no run alive; while a detection is asked for, it does.
  worker.unref();
  const waiting = new Map<number, { resolve: (d: Detection) => void; reject: (e: Error) => void }>();
  let next = 0;
  let broken: Error | undefined;
  let loaded = false;
  const fail = (err: Error) => {
    broken ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
    worker.unref();
  };
  const ready = new Promise<LanguageDetector>((resolve, reject) => {
    worker.on('error', (err) => {
      fail(err);
      reject(err);
    });
    worker.on('exit', () => fail(new Error('the language check worker stopped')));
    worker.on('message', (m: Message) => {
      if ('failed' in m) {
        fail(new Error(m.failed));
        reject(broken);
        return;
      }
      if ('languages' in m) {
        loaded = true;
        if (waiting.size === 0) worker.unref();
        resolve({
          languages: new Set(m.languages),
          detect: (text) =>
            new Promise<Detection>((res, rej) => {
              // A worker that failed after loading: the detections go on in this thread.
              if (broken) return void inProcess().then((d) => d.detect(text).then(res, rej), rej);
              const id = next++;
              waiting.set(id, { resolve: res, reject: rej });
              if (waiting.size === 1) worker.ref();
              worker.postMessage({ id, text });
            }),
        });
        return;
      }
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (waiting.size === 0) worker.unref();
      w.resolve({ language: m.language, reliable: m.reliable, scores: m.scores });
    });
  });
  const hold = () => {
    if (!loaded && !broken) worker.ref();
  };
  return { ready, hold };
}

let loading: Loading | undefined;
let detector: Promise<LanguageDetector> | undefined;

function start(): Loading {
  if (loading) return loading;
  try {
    const l = inWorker();
    loading = { ready: l.ready.catch(() => inProcess()), hold: l.hold };
  } catch {
    loading = { ready: inProcess(), hold: () => {} };
  }
  return loading;
}

/** The detector, loading in its worker from the first call on (in this thread if no worker starts). */
export function languageDetector(): Promise<LanguageDetector> {
  const l = start();
  l.hold();
  detector ??= l.ready;
  return detector;
}

/**
 * Starts loading the detector now (a run that will translate), so that the first check need not
 * wait for it. It keeps no process alive: a run that ends first does not wait for it.
 */
export function prepareLanguageCheck(): void {
  start();
}

/** Whether the detector has started loading in this process (diagnostics, tests). */
export function languageCheckStarted(): boolean {
  return loading !== undefined;
}
