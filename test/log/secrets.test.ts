import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { scrub } from '../../src/log/secrets.js';

// A password written in a URL never reaches a log line, however short it is (short values cannot be
// registered as secrets: they would redact ordinary words).

function captured(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('passwords in URLs', () => {
  it('a 3-character password in a URL is hidden in a JSON log line, the rest of the URL kept', () => {
    const out = captured();
    const log = createLogger({ destination: out.stream, format: 'json', level: 'info' });
    log.warn(
      { target: 'postgres://locsync:abc@db.internal:5432/state' },
      'could not reach https://u:pw@x.example/hook',
    );
    expect(out.text()).toContain('postgres://locsync:***@db.internal:5432/state');
    expect(out.text()).toContain('https://u:***@x.example/hook');
    expect(out.text()).not.toMatch(/:abc@|:pw@/);
  });

  it('leaves text without a password alone (user-only URLs, times, ports)', () => {
    const plain = 'https://user@host.example:8443/a at 12:30:01, see http://host.example:80/x';
    expect(scrub(plain)).toBe(plain);
  });
});

describe('document keys written out as such', () => {
  it('a labelled key never registered is hidden; ordinary words after "document key" are not', () => {
    const key = 'ABCDEF0123456789ABCDEF0123456789';
    expect(scrub(`failed (document_key ${key})`)).toBe('failed (document_key [REDACTED])');
    expect(scrub(`{"document_key":"${key}"}`)).toBe('{"document_key":"[REDACTED]"}');
    expect(scrub(`document key: ${key}`)).toBe('document key: [REDACTED]');
    const plain = 'the document key was refused; document_key missing';
    expect(scrub(plain)).toBe(plain);
  });
});
