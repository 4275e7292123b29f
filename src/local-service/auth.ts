// `Authorization: Service-Auth-Key <key>` (spec section 5), and the real service's word
// `DeepL-Auth-Key` as its alias; keys are compared in constant time.
import { timingSafeEqual } from 'node:crypto';
import { AUTH_SCHEME } from '../api/types.js';

/** Constant-time string equality (keys, document keys). */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const SCHEMES = [AUTH_SCHEME.toLowerCase(), 'deepl-auth-key'];

/** The key of an `Authorization: <scheme> <key>` header, or '' when absent or another scheme. */
export function authKeyOf(header: string | undefined): string {
  const m = /^\s*(\S+)\s+(.+?)\s*$/.exec(header ?? '');
  return m && SCHEMES.includes(m[1]!.toLowerCase()) ? m[2]! : '';
}

/**
 * The key the real service's official mock refuses while it accepts every other one: clients' test
 * suites use it to see a refused key (deepl-node's "rejects invalid authKey").
 */
export const REFUSED_KEY = 'invalid';

/**
 * A request's key is accepted: equal to the configured one when there is one; without one, any
 * non-empty key but REFUSED_KEY.
 */
export function isAuthorized(header: string | undefined, expected: string | undefined): boolean {
  const given = authKeyOf(header);
  if (!given) return false;
  return expected ? sameSecret(given, expected) : given !== REFUSED_KEY;
}
