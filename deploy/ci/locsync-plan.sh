#!/usr/bin/env bash
# The check of a pull request: `locsync plan --detailed-exitcode` (nothing is uploaded or billed),
# its priced plan written to the job summary, and the check failed on drift, as terraform plan does
# in CI: the outputs are not what the sources, the manifest and the style lists make now (exit 3),
# or a style list or glossary was changed on the service.
#
#   deploy/ci/locsync-plan.sh [summary-file]
#
# summary-file: where the summary (Markdown) is appended; default $GITHUB_STEP_SUMMARY (GitHub
# Actions shows it on the run's page), else locsync-plan.md (GitLab: an artifact, `expose_as`).
# LOCSYNC_CONFIG: the manifest (default pipeline.yaml). LOCSYNC_PLAN_FAIL_ON_CHANGES=0: changes
# pending are shown, not failed (the check then fails only on errors).
set -uo pipefail

config=${LOCSYNC_CONFIG:-pipeline.yaml}
summary=${1:-${GITHUB_STEP_SUMMARY:-locsync-plan.md}}
plan=$(mktemp)
trap 'rm -f "$plan"' EXIT

locsync plan -c "$config" --detailed-exitcode --no-progress >"$plan"
code=$?
cat "$plan"

case $code in
  0) verdict='Up to date: nothing to translate, nothing billed.' ;;
  3) verdict='Changes pending (drift): merging this bills the plan below, once the sync after the merge runs.' ;;
  *) verdict="locsync plan failed (exit $code): see the job's log." ;;
esac
{
  printf '## locsync plan\n\n%s\n\n' "$verdict"
  printf '```\n'
  cat "$plan"
  printf '```\n'
} >>"$summary"

if [ "$code" -eq 3 ] && [ "${LOCSYNC_PLAN_FAIL_ON_CHANGES:-1}" = 0 ]; then exit 0; fi
if [ "$code" -eq 3 ]; then
  echo "locsync-plan: changes pending (drift): the plan above is what the sync after the merge does" >&2
fi
exit "$code"
