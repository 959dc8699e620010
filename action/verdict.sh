#!/usr/bin/env bash
# The command's verdict becomes the step's, and so the job's: fieldgate's exit code (0 passed, 1
# the gate failed, a pinned copy is not the live table or a table was not deployed, 2 it could not
# run). It comes last so that the report and the comment are written whatever the verdict.
set -euo pipefail

case "$COMMAND:$EXIT_CODE" in
  check:0) echo "fieldgate: the gate passed" ;;
  check:1)
    echo "fieldgate: the gate failed; the findings are annotated on the pull request and listed in the job summary"
    exit 1
    ;;
  pull-check:0) echo "fieldgate: every pinned copy is the live table" ;;
  pull-check:1)
    echo "fieldgate: a table was changed outside the repository; what changed is annotated and listed in the job summary"
    exit 1
    ;;
  push:0) echo "fieldgate: every table is deployed or already live" ;;
  push:1)
    echo "fieldgate: a table was not deployed; why is in the log above and in the job summary"
    exit 1
    ;;
  *)
    echo "fieldgate: ${COMMAND:-check} could not run (exit code ${EXIT_CODE:-none}); its errors are above"
    exit 2
    ;;
esac
