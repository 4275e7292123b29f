import type { LoadedManifest } from '../manifest/load.js';

// What an operator should do about a failed job, by the kind of its last error: `locsync status`,
// its --json and the status page say the same.

export function adviceFor(kind: string | null, m: LoadedManifest, attempts: number, cfg: string): string {
  const rerun = `rerun \`locsync sync -c ${cfg}\``;
  switch (kind) {
    case 'quota':
      return `the account's character quota is used up: raise your plan's character limit or wait for the next billing period; then ${rerun}`;
    case 'auth':
      return `the service refused the API key: check $${m.manifest.service.key_env} (and service.plan in the manifest); then ${rerun}`;
    case 'job-error':
      return attempts >= m.manifest.max_attempts
        ? `the service could not translate it (${attempts} attempt(s)): check that the file opens and is a supported format; a changed file is tried again (or raise max_attempts)`
        : `the service could not translate it (attempt ${attempts} of ${m.manifest.max_attempts}): check that the file opens; the next sync tries again`;
    case 'maybe-accepted':
      return `the upload broke off after the document was sent, so it may have been billed; the next sync uploads it again (${rerun})`;
    case 'rejected':
      return `the service refused the document (too large, or invalid): fix the file or exclude it in the manifest`;
    case 'transient':
      return `the service was unavailable or busy; nothing is lost: ${rerun} to resume`;
    case 'output':
      return `writing the output failed: check the output folder's permissions and free disk space; then ${rerun}`;
    case 'stopped':
      return `the run was stopped before this finished: ${rerun} to resume (nothing uploaded is paid twice)`;
    case 'lost-download':
      return `the translated document was no longer on the service; the next sync uploads it again`;
    default:
      return rerun;
  }
}
