// Usage and quota (the real service's GET /v2/usage): characters translated against a limit, and
// for sessions of the official mock's headers also documents against a document limit. A request
// that would go over a limit answers 456, so that users can rehearse running out of quota.
import { readFileSync, writeFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

/** The real professional plan reports this limit: in practice, no limit. */
export const UNLIMITED_CHARACTERS = 1_000_000_000_000;

/** One quota: counts and limits; a limit of 0 or undefined means the quantity is not limited. */
export interface UsageAccount {
  characterCount: number;
  /** The billing period the counts are of (the calendar month, UTC), when it is tracked. */
  period?: { start: string; end: string };
  /** Called after each charge (the service's own account keeps its counts in its data folder). */
  charged?: () => void;
  characterLimit?: number;
  documentCount: number;
  documentLimit?: number;
  teamDocumentCount: number;
  teamDocumentLimit?: number;
}

export function newAccount(limits: Partial<UsageAccount> = {}): UsageAccount {
  return { characterCount: 0, documentCount: 0, teamDocumentCount: 0, ...limits };
}

const limited = (limit: number | undefined): limit is number => limit !== undefined && limit > 0;

function quotaExceeded(what: string): ApiError {
  return new ApiError(
    456,
    'quota_exceeded',
    `Quota exceeded: the ${what} limit of this billing period has been reached.`,
  );
}

/** 456 when `characters` more would go over the character limit. */
export function checkCharacters(a: UsageAccount, characters: number): void {
  if (limited(a.characterLimit) && a.characterCount + characters > a.characterLimit)
    throw quotaExceeded('character');
}

/** 456 when a limit is already reached: the document's characters are known only once translated. */
export function checkDocument(a: UsageAccount): void {
  if (limited(a.characterLimit) && a.characterCount >= a.characterLimit) throw quotaExceeded('character');
  if (limited(a.documentLimit) && a.documentCount >= a.documentLimit) throw quotaExceeded('document');
  if (limited(a.teamDocumentLimit) && a.teamDocumentCount >= a.teamDocumentLimit)
    throw quotaExceeded('team document');
}

export function chargeDocument(a: UsageAccount, characters: number): void {
  a.characterCount += characters;
  a.documentCount += 1;
  a.teamDocumentCount += 1;
  a.charged?.();
}

/** The characters of a text request. */
export function chargeCharacters(a: UsageAccount, characters: number): void {
  a.characterCount += characters;
  a.charged?.();
}

/** The calendar month (UTC) of `now`, as the billing period the real service reports. */
export function monthPeriod(now: Date): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}

/**
 * The service's own account, its counts kept in `file` (the data folder): a service started again
 * on the same folder (the embedded one starts with every command) answers /v2/usage with what it
 * billed in this period, not since its start. A new month starts a new period at 0.
 */
export function persistedAccount(
  account: UsageAccount,
  file: string | undefined,
  now = new Date(),
): UsageAccount {
  account.period = monthPeriod(now);
  if (!file) return account;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { start?: string; character_count?: number };
    if (saved.start === account.period.start) account.characterCount = Number(saved.character_count) || 0;
  } catch {
    /* no usage yet: a new period */
  }
  account.charged = () => {
    const period = monthPeriod(new Date());
    if (period.start !== account.period?.start) {
      account.period = period;
      account.characterCount = 0;
    }
    writeFileSync(file, JSON.stringify({ start: period.start, character_count: account.characterCount }), {
      mode: 0o600,
    });
  };
  return account;
}

/** The /v2/usage answer: only the quantities that are limited (as the real service). */
export function usageReport(a: UsageAccount): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  if (limited(a.characterLimit)) {
    out.character_count = a.characterCount;
    out.character_limit = a.characterLimit;
  }
  if (a.period) {
    // As the real service reports a professional account's billing period.
    out.start_time = a.period.start;
    out.end_time = a.period.end;
  }
  if (limited(a.documentLimit)) {
    out.document_count = a.documentCount;
    out.document_limit = a.documentLimit;
  }
  if (limited(a.teamDocumentLimit)) {
    out.team_document_count = a.teamDocumentCount;
    out.team_document_limit = a.teamDocumentLimit;
  }
  return out;
}

export function registerUsage(app: FastifyInstance, accountOf: (req: FastifyRequest) => UsageAccount): void {
  app.get('/v2/usage', async (req) => usageReport(accountOf(req)));
}
