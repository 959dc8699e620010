# shellcheck shell=bash
# Sourced by check.sh for `command: pull-check`: the JSON report of `fieldgate pull --check`
# (`{"tables": [{table, metadata, pinned, in-sync, changes, written}]}`) as Markdown and as one
# error annotation per table that is not the live table.

# Text for a Markdown table cell: on one line, no `|` that ends the cell, no HTML.
# shellcheck disable=SC2016
cell='def cell: tostring | gsub("[\r\n]+"; " ") | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub("[|]"; "\\|");'

# What differs, or why there is no comparison, for a table of the report.
# shellcheck disable=SC2016
why='def why: if .pinned | not then "no pinned copy yet"
  elif .["in-sync"] then "in sync"
  else "changed outside the repository: " + (.changes | join("; ")) end;'

drift_report() {
  jq -r "$cell $why"'
    (.tables | length) as $all
    | ([.tables[] | select(.["in-sync"] | not)] | length) as $out
    | "## fieldgate pull --check: the pinned copies against the catalog\n",
      (if $out == 0 then "All \($all) pinned copies are the live tables."
       else "**\($out) of \($all) pinned copies are not the live tables.** Each table below was changed outside the repository since it was pulled: review the change, then run `fieldgate pull` on the default branch and commit the pinned copies."
       end),
      "",
      "| table | pinned copy | |",
      "| --- | --- | --- |",
      (.tables[] | "| \(.table | cell) | \(.metadata | cell) | \(why | cell) |")' "$1"
}

drift_annotations() {
  local message
  while IFS= read -r message; do
    annotate error "$message"
  done < <(jq -r "$why"'
    .tables[] | select(.["in-sync"] | not)
    | "\(.table): the pinned copy (\(.metadata)) is not the live table: \(why); run `fieldgate pull \(.table)` and commit it"
    | gsub("[\r\n]+"; " ")' "$1")
}
