#!/usr/bin/env bash
# The run step of the stridelint GitHub Action (action.yml): annotate the findings, write
# SARIF for code scanning when asked, summarize the run for the job page, and record the exit
# status as the step output `exit-code` (the action's last step fails the job with it, so the
# SARIF upload between them runs whatever the check found).
#
# Inputs come as environment variables: STRIDELINT_ARGS (paths and flags for `stridelint
# check`, split on whitespace), STRIDELINT_SARIF ("true": write SARIF to
# STRIDELINT_SARIF_FILE) and STRIDELINT_FAIL_ON_FINDINGS ("false": findings alone do not fail
# the job).
set -uo pipefail

output="${GITHUB_OUTPUT:-/dev/null}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
read -r -a args <<< "${STRIDELINT_ARGS:-.}"

record() {
  echo "exit-code=$1" >> "$output"
  exit 0
}

if ! command -v stridelint > /dev/null 2>&1; then
  echo "::error title=stridelint::stridelint is not on PATH; the action's install step did not run or failed"
  record 2
fi

stridelint check --output-format github "${args[@]}"
status=$?

if [[ "${STRIDELINT_SARIF:-false}" == "true" ]]; then
  stridelint check --output-format sarif --exit-zero --quiet \
    --output-file "${STRIDELINT_SARIF_FILE:-stridelint.sarif}" "${args[@]}" || status=2
  echo "sarif-file=${STRIDELINT_SARIF_FILE:-stridelint.sarif}" >> "$output"
fi

{
  echo "### stridelint"
  if [[ $status -eq 0 ]]; then
    echo "All checks passed."
  elif [[ $status -eq 1 ]]; then
    echo '```text'
    stridelint check --statistics --exit-zero --quiet "${args[@]}"
    echo '```'
  else
    echo "stridelint could not check every file: see the step's log."
  fi
} >> "$summary"

if [[ $status -eq 1 && "${STRIDELINT_FAIL_ON_FINDINGS:-true}" == "false" ]]; then
  status=0
fi
record "$status"
