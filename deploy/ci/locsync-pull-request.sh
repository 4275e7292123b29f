#!/usr/bin/env bash
# After a push to the main branch: `locsync sync --commit` on a branch of its own, then that branch
# pushed and a pull request opened for it, with the standard tools of the forge:
#
#   deploy/ci/locsync-pull-request.sh github   # gh pr create (GH_TOKEN in the environment)
#   deploy/ci/locsync-pull-request.sh gitlab   # git push options: merge_request.create ...
#
# The commit holds exactly the outputs the sync wrote or removed; its subject is the request's
# title, its body (files per language, the run, the bill, what failed) the description. A run that
# delivers nothing makes no commit, no branch and no request. The script exits with the sync's
# code: a run with failures still opens the request for what it delivered, and fails the job.
#
# LOCSYNC_CONFIG: the manifest (default pipeline.yaml). LOCSYNC_REMOTE: the remote (origin).
# LOCSYNC_BASE: the branch the request goes into (default: the branch CI runs for).
# LOCSYNC_BRANCH: the branch made for the commit (default locsync/translations-<time>-<commit>).
set -euo pipefail

forge=${1:-}
case $forge in
  github | gitlab) ;;
  *)
    echo "usage: locsync-pull-request.sh github|gitlab" >&2
    exit 2
    ;;
esac
config=${LOCSYNC_CONFIG:-pipeline.yaml}
remote=${LOCSYNC_REMOTE:-origin}
# GitLab checks out a detached HEAD: the branch comes from CI's variables.
base=${LOCSYNC_BASE:-${GITHUB_REF_NAME:-${CI_COMMIT_BRANCH:-$(git symbolic-ref --short -q HEAD || true)}}}
if [ -z "$base" ]; then
  echo "locsync-pull-request: no base branch (set LOCSYNC_BASE)" >&2
  exit 2
fi
start=$(git rev-parse HEAD)
was_on=$(git symbolic-ref --short -q HEAD || true)

# The outputs of a translation request not merged yet are missing from this checkout: a sync now
# would translate (and bill) them again. Merge it first (or close it and delete its branch).
git fetch -q "$remote" '+refs/heads/locsync/*:refs/remotes/locsync-open/*' || true
for open in $(git for-each-ref --format='%(refname)' refs/remotes/locsync-open/); do
  if ! git merge-base --is-ancestor "$open" "$start"; then
    echo "locsync-pull-request: ${open#refs/remotes/locsync-open/} is not merged into $base yet: merge its pull request (or close it and delete the branch) first; a sync now would translate its outputs again"
    exit 0
  fi
done

# A branch of each run's own (a re-run of the same job included): a push never needs to force.
branch=${LOCSYNC_BRANCH:-locsync/translations-$(date -u +%Y%m%d-%H%M%S)-$(git rev-parse --short=8 HEAD)}

git switch -q -c "$branch"
set +e
locsync sync -c "$config" --commit --no-progress
code=$?
set -e

if [ "$(git rev-parse HEAD)" = "$start" ]; then
  echo "locsync-pull-request: nothing delivered, no pull request"
  if [ -n "$was_on" ]; then git switch -q "$was_on"; else git switch -q --detach "$start"; fi
  git branch -q -D "$branch"
  exit "$code"
fi

title=$(git log -1 --format=%s)
case $forge in
  github)
    git push -q -u "$remote" "$branch"
    body=$(mktemp)
    trap 'rm -f "$body"' EXIT
    git log -1 --format=%b >"$body"
    gh pr create --base "$base" --head "$branch" --title "$title" --body-file "$body"
    ;;
  gitlab)
    # GitLab opens the merge request as the branch arrives; with one commit, its body is the
    # description (a push option cannot hold the body's line breaks).
    git push -q -u "$remote" "$branch" \
      -o merge_request.create \
      -o "merge_request.target=$base" \
      -o "merge_request.title=$title" \
      -o merge_request.remove_source_branch
    ;;
esac
echo "locsync-pull-request: $branch pushed to $remote, pull request into $base: $title"
exit "$code"
