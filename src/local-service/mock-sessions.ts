// The official mock server's session headers, as aliases of our own faults and quotas. A request
// carrying `mock-server-session: <name>` belongs to that session; the first request of a session
// sets it up from its other headers:
//   mock-server-session-429-count: N          the next N requests answer 429
//   mock-server-session-no-response-count: N  the next N requests get no answer (connection dropped)
//   mock-server-session-doc-failure: N        the next N uploaded documents end in error
//   mock-server-session-doc-queue-time: ms    documents wait this long queued
//   mock-server-session-doc-translate-time: ms  and this long translating
//   mock-server-session-init-character-limit / -init-document-limit / -init-team-document-limit: N
//                                             the session's quota (456 beyond it; 0: not limited)
import type { IncomingHttpHeaders } from 'node:http';
import { newAccount, type UsageAccount } from './usage.js';

const PREFIX = 'mock-server-session';

export interface MockSession {
  name: string;
  left429: number;
  leftNoResponse: number;
  leftDocFailures: number;
  docQueueMs?: number;
  docTranslateMs?: number;
  /** The session's own quota, when it set one; else the service's. */
  account?: UsageAccount;
}

function count(headers: IncomingHttpHeaders, suffix: string): number | undefined {
  const v = headers[`${PREFIX}-${suffix}`];
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** At most this many sessions are remembered (oldest forgotten first). */
const MAX_SESSIONS = 10_000;

export class MockSessions {
  private readonly sessions = new Map<string, MockSession>();

  /** The session of a request (set up on its first request), or undefined without the header. */
  forRequest(headers: IncomingHttpHeaders): MockSession | undefined {
    const name = headers[PREFIX];
    if (typeof name !== 'string' || name === '') return undefined;
    const known = this.sessions.get(name);
    if (known) return known;
    const session: MockSession = {
      name,
      left429: count(headers, '429-count') ?? 0,
      leftNoResponse: count(headers, 'no-response-count') ?? 0,
      leftDocFailures: count(headers, 'doc-failure') ?? 0,
    };
    const queue = count(headers, 'doc-queue-time');
    if (queue !== undefined) session.docQueueMs = queue;
    const translate = count(headers, 'doc-translate-time');
    if (translate !== undefined) session.docTranslateMs = translate;
    const characterLimit = count(headers, 'init-character-limit');
    const documentLimit = count(headers, 'init-document-limit');
    const teamDocumentLimit = count(headers, 'init-team-document-limit');
    if (characterLimit !== undefined || documentLimit !== undefined || teamDocumentLimit !== undefined)
      session.account = newAccount({
        ...(characterLimit !== undefined ? { characterLimit } : {}),
        ...(documentLimit !== undefined ? { documentLimit } : {}),
        ...(teamDocumentLimit !== undefined ? { teamDocumentLimit } : {}),
      });
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(name, session);
    return session;
  }

  /** Takes the session's next request fault: a 429, or no answer. */
  static takeRequestFault(s: MockSession): { status?: number; drop?: boolean } {
    if (s.leftNoResponse > 0) {
      s.leftNoResponse--;
      return { drop: true };
    }
    if (s.left429 > 0) {
      s.left429--;
      return { status: 429 };
    }
    return {};
  }

  static takeDocFailure(s: MockSession): boolean {
    if (s.leftDocFailures <= 0) return false;
    s.leftDocFailures--;
    return true;
  }
}
