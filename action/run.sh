#!/usr/bin/env bash
# The action's run step (action.yml): `mcpscope COMMAND ARGS… --format
# github`, whose annotations the runner shows on the changed files and
# whose job summary goes to $GITHUB_STEP_SUMMARY; the step fails with
# mcpscope's exit code, and gives it as the `exit-code` output.
#
# Environment: MCPSCOPE_COMMAND (test, check or diff), MCPSCOPE_ARGS (one
# argument per line: nothing is split on spaces, quoted or expanded),
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
set -uo pipefail
command="${MCPSCOPE_COMMAND:-test}"
case "$command" in
    test | check | diff) ;;
    *) echo "::error title=mcpscope::command must be test, check or diff, not '$command'"; exit 2 ;;
esac
args=()
while IFS= read -r line; do
    [[ -n "$line" ]] && args+=("$line")
done <<<"${MCPSCOPE_ARGS:-}"
format=(--format github)
# `diff` reports differences, not annotations: its text goes to the log.
[[ "$command" == diff ]] && format=()
mcpscope "$command" "${args[@]}" "${format[@]}"
code=$?
echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
