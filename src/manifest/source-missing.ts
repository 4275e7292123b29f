// The words for a mapping whose source folder is away, said the same by sync, status, validate and
// the webhook: what is wrong, why it is not "nothing to do", what to do.

export function sourceMissingMessage(source: string, how: 'missing' | 'empty'): string {
  const what =
    how === 'missing'
      ? `source folder '${source}' does not exist`
      : `source folder '${source}' is empty although the state knows files from it`;
  return `${what} (a typo in source:, or a share that is not mounted?): nothing of this mapping is translated and no output is deleted; fix the path or mount the share, or set allow_missing: true on the mapping if it may be absent`;
}
