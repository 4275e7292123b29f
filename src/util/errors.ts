/** Exit codes of the CLI (design.md conventions). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * A mistake in what the user gave us (manifest, flags, environment): exit 2, message shown as is.
 * `file`, `line` and `column` (1-based) locate it when known.
 */
export class ConfigError extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(message: string, where: { file?: string; line?: number; column?: number } = {}) {
    super(message);
    this.name = 'ConfigError';
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
  }
  /** "file:line:col: message" as editors and terminals expect. */
  format(): string {
    const loc = [this.file, this.line, this.column].filter((x) => x !== undefined).join(':');
    return loc ? `${loc}: ${this.message}` : this.message;
  }
}
