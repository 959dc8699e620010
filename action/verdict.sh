#!/usr/bin/env bash
# The gate's verdict becomes the step's, and so the job's: the exit code of `fieldgate check`
# (0 passed, 1 the gate failed, 2 check could not run). It comes last so that the report and the
# comment are written whatever the verdict.
set -euo pipefail

case "$EXIT_CODE" in
  0) echo "fieldgate: the gate passed" ;;
  1)
    echo "fieldgate: the gate failed; the findings are annotated on the pull request and listed in the job summary"
    exit 1
    ;;
  *)
    echo "fieldgate: check could not run (exit code ${EXIT_CODE:-none}); its errors are above"
    exit 2
    ;;
esac
