#!/usr/bin/env bash
# Keeps one pull-request comment with the Markdown report up to date, through the GitHub CLI with
# the job's token: the comment is found by its hidden marker among those this token wrote (not
# hidden), edited when found, created otherwise. A token that may not comment (a pull request
# from a fork gets a read-only one) is a warning: the gate's verdict does not depend on it.
set -euo pipefail
# shellcheck source=action/lib.sh
source "$GITHUB_ACTION_PATH/action/lib.sh"

case "$COMMENT" in
  false) exit 0 ;;
  true) ;;
  *)
    annotate error "comment: expected \`true\` or \`false\`, got \`$COMMENT\`"
    exit 1
    ;;
esac
number=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")
if [[ ! $number =~ ^[0-9]+$ ]]; then
  annotate notice "comment: a ${GITHUB_EVENT_NAME:-} event has no pull request to comment on"
  exit 0
fi
if [[ -z "$REPORT" || ! -s "$REPORT" ]]; then
  annotate warning "comment: check wrote no report, so the pull-request comment is left as it was"
  exit 0
fi

marker='<!-- fieldgate-report -->'
body="$(dirname -- "$REPORT")/comment.md"
{
  echo "$marker"
  cat -- "$REPORT"
} >"$body"
# GitHub refuses comments over 65,536 characters; the job summary holds the whole report. The
# report is cut after its last whole line, so no table row or character is cut in two.
if (($(wc -c <"$body") > 60000)); then
  head -c 60000 -- "$REPORT" | sed '$d' >"$body.report"
  {
    echo "$marker"
    cat -- "$body.report"
    printf '\n\n**The report is longer than a comment can hold: the [job summary](%s) has all of it.**\n' \
      "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
  } >"$body"
fi

host=${GITHUB_SERVER_URL#*://}
export GH_HOST=$host
# gh reads GH_ENTERPRISE_TOKEN for a GitHub Enterprise Server host, GH_TOKEN for github.com.
export GH_ENTERPRISE_TOKEN=$GH_TOKEN
owner=${GITHUB_REPOSITORY%%/*}
name=${GITHUB_REPOSITORY#*/}
# $owner, $name, ... are GraphQL variables, which gh fills from the -f/-F fields.
# shellcheck disable=SC2016
query='query($owner: String!, $name: String!, $number: Int!, $endCursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      comments(first: 100, after: $endCursor) {
        nodes { id viewerDidAuthor isMinimized body }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}'
filter='.data.repository.pullRequest.comments.nodes[]
  | select(.viewerDidAuthor and (.isMinimized | not) and (.body | startswith("<!-- fieldgate-report -->")))
  | .id'
cannot="comment: the pull-request comment could not be written (the job needs \`permissions: pull-requests: write\`; a pull request from a fork gets a read-only token)"
if ! found=$(gh api graphql --paginate -f query="$query" -f owner="$owner" -f name="$name" \
  -F number="$number" --jq "$filter"); then
  annotate warning "$cannot"
  exit 0
fi
id=${found%%$'\n'*}
if [[ -z "$id" ]]; then
  gh pr comment "$number" --repo "$host/$GITHUB_REPOSITORY" --body-file "$body" ||
    annotate warning "$cannot"
else
  # shellcheck disable=SC2016
  gh api graphql -f id="$id" -F body=@"$body" -f query='mutation($id: ID!, $body: String!) {
  updateIssueComment(input: {id: $id, body: $body}) { issueComment { id } }
}' >/dev/null || annotate warning "$cannot"
fi
