// Faults on demand: per server (ServiceOptions.faults, addFaults, POST /_locsync/faults) and per
// request (the X-Locsync-Fault header). See docs/local-service.md.
import { GARBLED_ANSWER_KINDS, type GarbledAnswerKind } from './garbled-answers.js';
import { BAD_OUTPUT_KINDS, type BadOutputKind, type FaultSpec } from './types.js';
import { badRequest } from './errors.js';

export const FAULT_HEADER = 'x-locsync-fault';
export const ABSURD_SECONDS_REMAINING = 2 ** 27;
export const FAULT_DOCUMENT_MESSAGE = 'Injected fault: the document could not be translated.';

/** What happens to one request. */
export interface RequestFault {
  /** Answer this status instead of handling the request. */
  status?: number;
  retryAfter?: number;
  /** Destroy the connection without a response (before reading the body, or after it). */
  drop?: 'before-body' | 'after-body';
  /** Handle the request, then answer its 2xx status with this unreadable body. */
  garble?: GarbledAnswerKind;
  latencyMs?: number;
  /** An upload: the document ends in `error`. */
  errorDocument?: boolean;
  /** Status answers report seconds_remaining = 2^27. */
  absurdEta?: boolean;
  /** A download: only this many bytes of the announced body are sent, then the connection closes. */
  cutAfterBytes?: number;
  /** An upload: the document ends `done` with this bad translation. */
  badOutput?: BadOutputKind;
}

interface ActiveFault {
  spec: FaultSpec;
  statusLeft: number;
  dropLeft: number;
  garbleLeft: number;
  errorDocumentsLeft: number;
  cutDownloadsLeft: number;
  badOutputsLeft: number;
}

/** Validates a FaultSpec from JSON (control endpoint, CLI flag). */
export function parseFaultSpec(value: unknown): FaultSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('A fault must be a JSON object.', 'invalid_fault');
  const v = value as Record<string, unknown>;
  const known = [
    'match',
    'status',
    'count',
    'retryAfter',
    'drop',
    'dropAfterBody',
    'garble',
    'garbleAs',
    'latencyMs',
    'errorDocuments',
    'absurdSecondsRemaining',
    'cutDownloads',
    'cutAfterBytes',
    'probability',
    'badOutput',
    'badOutputs',
    'badOutputFor',
  ];
  for (const k of Object.keys(v))
    if (!known.includes(k))
      throw badRequest(`Unknown fault field '${k}' (known: ${known.join(', ')}).`, 'invalid_fault');
  const int = (k: string, min: number, max: number): void => {
    const x = v[k];
    if (x !== undefined && (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max))
      throw badRequest(`Fault field '${k}' must be an integer from ${min} to ${max}.`, 'invalid_fault');
  };
  int('status', 100, 599);
  int('count', 0, 1e9);
  int('retryAfter', 0, 86_400);
  int('drop', 0, 1e9);
  int('garble', 0, 1e9);
  int('latencyMs', 0, 600_000);
  int('errorDocuments', 0, 1e9);
  int('cutDownloads', 0, 1e9);
  int('cutAfterBytes', 0, 1e12);
  int('badOutputs', 0, 1e9);
  if (v.badOutputFor !== undefined && typeof v.badOutputFor !== 'string')
    throw badRequest(
      "Fault field 'badOutputFor' must be a string (the end of a file name).",
      'invalid_fault',
    );
  if (v.badOutput !== undefined && !(BAD_OUTPUT_KINDS as readonly unknown[]).includes(v.badOutput))
    throw badRequest(
      `Fault field 'badOutput' must be one of ${BAD_OUTPUT_KINDS.join(', ')}.`,
      'invalid_fault',
    );
  if (v.garbleAs !== undefined && !(GARBLED_ANSWER_KINDS as readonly unknown[]).includes(v.garbleAs))
    throw badRequest(
      `Fault field 'garbleAs' must be one of ${GARBLED_ANSWER_KINDS.join(', ')}.`,
      'invalid_fault',
    );
  const p = v.probability;
  if (p !== undefined && (typeof p !== 'number' || !(p >= 0 && p <= 1)))
    throw badRequest("Fault field 'probability' must be a number from 0 to 1.", 'invalid_fault');
  for (const k of ['dropAfterBody', 'absurdSecondsRemaining'])
    if (v[k] !== undefined && typeof v[k] !== 'boolean')
      throw badRequest(`Fault field '${k}' must be a boolean.`, 'invalid_fault');
  if (v.match !== undefined) {
    const m = v.match as Record<string, unknown>;
    if (
      typeof m !== 'object' ||
      m === null ||
      Array.isArray(m) ||
      (m.method !== undefined && typeof m.method !== 'string') ||
      (m.path !== undefined && typeof m.path !== 'string')
    )
      throw badRequest(
        "Fault field 'match' must be an object {method?: string, path?: string}.",
        'invalid_fault',
      );
  }
  return v as FaultSpec;
}

/** Parses a JSON fault or array of faults. */
export function parseFaultList(value: unknown): FaultSpec[] {
  return (Array.isArray(value) ? value : [value]).map(parseFaultSpec);
}

/**
 * The X-Locsync-Fault header: `;`- or `,`-separated items, e.g. `status=429;retry-after=2`,
 * `status=503`, `drop`, `drop-after-body`, `garble`, `garble=truncated`, `latency=500`, `doc-error`, `absurd-eta`, `cut-after=100`,
 * `bad-output=untranslated|truncated|dropped-segments|wrong-language`.
 */
export function parseFaultHeader(header: string): RequestFault {
  const f: RequestFault = {};
  for (const item of header.split(/[;,]/)) {
    const [rawKey, rawVal] = item.split('=', 2).map((s) => s.trim());
    const key = (rawKey ?? '').toLowerCase();
    if (!key) continue;
    const num = (): number => {
      const n = Number(rawVal);
      if (rawVal === undefined || !Number.isFinite(n) || n < 0)
        throw badRequest(`X-Locsync-Fault: '${key}' needs a number.`, 'invalid_fault');
      return n;
    };
    switch (key) {
      case 'status': {
        const s = num();
        if (!Number.isInteger(s) || s < 100 || s > 599)
          throw badRequest('X-Locsync-Fault: status must be 100..599.', 'invalid_fault');
        f.status = s;
        break;
      }
      case 'retry-after':
        f.retryAfter = num();
        break;
      case 'drop':
        f.drop = 'before-body';
        break;
      case 'drop-after-body':
        f.drop = 'after-body';
        break;
      case 'garble':
        if (rawVal !== undefined && !(GARBLED_ANSWER_KINDS as readonly string[]).includes(rawVal))
          throw badRequest(
            `X-Locsync-Fault: garble must be one of ${GARBLED_ANSWER_KINDS.join(', ')}.`,
            'invalid_fault',
          );
        f.garble = (rawVal as GarbledAnswerKind | undefined) ?? 'html';
        break;
      case 'latency':
        f.latencyMs = num();
        break;
      case 'doc-error':
        f.errorDocument = true;
        break;
      case 'absurd-eta':
        f.absurdEta = true;
        break;
      case 'cut-after':
        f.cutAfterBytes = num();
        break;
      case 'bad-output':
        if (!(BAD_OUTPUT_KINDS as readonly string[]).includes(rawVal ?? ''))
          throw badRequest(
            `X-Locsync-Fault: bad-output must be one of ${BAD_OUTPUT_KINDS.join(', ')}.`,
            'invalid_fault',
          );
        f.badOutput = rawVal as BadOutputKind;
        break;
      default:
        throw badRequest(`X-Locsync-Fault: unknown item '${key}'.`, 'invalid_fault');
    }
  }
  return f;
}

function matches(spec: FaultSpec, method: string, path: string): boolean {
  if (spec.match?.method && spec.match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (spec.match?.path && !path.startsWith(spec.match.path)) return false;
  return true;
}

/** The server's installed faults and what is left of their counts. */
export class FaultBook {
  private active: ActiveFault[] = [];

  add(...specs: FaultSpec[]): void {
    for (const spec of specs) {
      this.active.push({
        spec,
        statusLeft: spec.status !== undefined ? (spec.count ?? 1) : 0,
        dropLeft: spec.drop ?? 0,
        garbleLeft: spec.garble ?? 0,
        errorDocumentsLeft: spec.errorDocuments ?? 0,
        cutDownloadsLeft: spec.cutDownloads ?? 0,
        badOutputsLeft: spec.badOutput !== undefined ? (spec.badOutputs ?? 1) : 0,
      });
    }
  }

  clear(): void {
    this.active = [];
  }

  /** Installed faults with what is left of their counts (GET /_locsync/faults). */
  describe(): Array<
    FaultSpec & {
      left: {
        status: number;
        drop: number;
        garble: number;
        errorDocuments: number;
        cutDownloads: number;
        badOutputs: number;
      };
    }
  > {
    return this.active.map((a) => ({
      ...a.spec,
      left: {
        status: a.statusLeft,
        drop: a.dropLeft,
        garble: a.garbleLeft,
        errorDocuments: a.errorDocumentsLeft,
        cutDownloads: a.cutDownloadsLeft,
        badOutputs: a.badOutputsLeft,
      },
    }));
  }

  /** Decides (and consumes counts for) what happens to a request. */
  forRequest(method: string, path: string): RequestFault {
    const f: RequestFault = {};
    for (const a of this.active) {
      if (!matches(a.spec, method, path)) continue;
      // A bad day, not a fixed script: the fault touches each matching request with this chance.
      if (a.spec.probability !== undefined && Math.random() >= a.spec.probability) continue;
      if (a.spec.latencyMs) f.latencyMs = (f.latencyMs ?? 0) + a.spec.latencyMs;
      if (a.spec.absurdSecondsRemaining) f.absurdEta = true;
      if (f.status === undefined && f.drop === undefined && f.garble === undefined) {
        if (a.statusLeft > 0) {
          a.statusLeft--;
          f.status = a.spec.status;
          if (a.spec.retryAfter !== undefined) f.retryAfter = a.spec.retryAfter;
        } else if (a.dropLeft > 0) {
          a.dropLeft--;
          f.drop = a.spec.dropAfterBody ? 'after-body' : 'before-body';
        } else if (a.garbleLeft > 0) {
          a.garbleLeft--;
          f.garble = a.spec.garbleAs ?? 'html';
        }
      }
    }
    return f;
  }

  /**
   * Consumes one cut download for a download of `size` bytes, if any is left: the bytes to send
   * (fewer than `size`; a document of 0 bytes cannot be cut).
   */
  takeCutDownload(method: string, path: string, size: number): number | undefined {
    if (size === 0) return undefined;
    for (const a of this.active) {
      if (a.cutDownloadsLeft > 0 && matches(a.spec, method, path)) {
        a.cutDownloadsLeft--;
        return Math.min(size - 1, a.spec.cutAfterBytes ?? Math.floor(size / 2));
      }
    }
    return undefined;
  }

  /** Consumes one bad output for an accepted upload of `filename`, if any is left: its kind. */
  takeBadOutput(method: string, path: string, filename: string): BadOutputKind | undefined {
    for (const a of this.active) {
      const forName = a.spec.badOutputFor;
      if (forName !== undefined && !filename.toLowerCase().endsWith(forName.toLowerCase())) continue;
      if (a.badOutputsLeft > 0 && a.spec.badOutput !== undefined && matches(a.spec, method, path)) {
        a.badOutputsLeft--;
        return a.spec.badOutput;
      }
    }
    return undefined;
  }

  /** Consumes one "document ends in error" for an accepted upload, if any is left. */
  takeErrorDocument(method: string, path: string): boolean {
    for (const a of this.active) {
      if (a.errorDocumentsLeft > 0 && matches(a.spec, method, path)) {
        a.errorDocumentsLeft--;
        return true;
      }
    }
    return false;
  }
}

/** Merges the header's fault over the server's (the header wins where both set a field). */
export function mergeFaults(server: RequestFault, header: RequestFault): RequestFault {
  const out: RequestFault = { ...server, ...header };
  if (header.status !== undefined || header.drop !== undefined || header.garble !== undefined) {
    out.status = header.status;
    out.drop = header.drop;
    out.garble = header.garble;
    out.retryAfter = header.retryAfter;
  }
  const latency = (server.latencyMs ?? 0) + (header.latencyMs ?? 0);
  if (latency > 0) out.latencyMs = latency;
  return out;
}

/** "status:429", "drop", "latency:200" ... for the request log. */
export function describeFault(f: RequestFault): string | undefined {
  const parts: string[] = [];
  if (f.latencyMs) parts.push(`latency:${f.latencyMs}`);
  if (f.status !== undefined) parts.push(`status:${f.status}`);
  if (f.drop === 'before-body') parts.push('drop');
  if (f.drop === 'after-body') parts.push('drop-after-body');
  if (f.garble !== undefined) parts.push(`garble:${f.garble}`);
  if (f.errorDocument) parts.push('doc-error');
  if (f.absurdEta) parts.push('absurd-eta');
  if (f.cutAfterBytes !== undefined) parts.push(`cut-after:${f.cutAfterBytes}`);
  if (f.badOutput !== undefined) parts.push(`bad-output:${f.badOutput}`);
  return parts.length ? parts.join(',') : undefined;
}
