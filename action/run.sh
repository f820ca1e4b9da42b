#!/usr/bin/env bash
# The action's run step (action.yml): `mcpscope COMMAND ARGS… --format
# github`, whose annotations the runner shows on the changed files and
# whose job summary goes to $GITHUB_STEP_SUMMARY; the step fails with
# mcpscope's exit code, and gives it as the `exit-code` output.
#
# Environment: MCPSCOPE_COMMAND (test, check or diff), MCPSCOPE_ARGS (one
# argument per line: nothing is split on spaces, quoted or expanded),
# MCPSCOPE_SETUP (bash run here first), GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
# With MCPSCOPE_COMPARE_BASE set, compare.sh runs instead (`check` only).
set -uo pipefail
command="${MCPSCOPE_COMMAND:-test}"
case "$command" in
    test | check | diff) ;;
    *) echo "::error title=mcpscope::command must be test, check or diff, not '$command'"; exit 2 ;;
esac
if [[ -n "${MCPSCOPE_COMPARE_BASE:-}" ]]; then
    [[ "$command" == check ]] || { echo "::error title=mcpscope::compare-base compares two checks: command must be check, not '$command'"; exit 2; }
    exec bash "$(dirname "${BASH_SOURCE[0]}")/compare.sh"
fi
if [[ -n "${MCPSCOPE_SETUP:-}" ]]; then
    echo "::group::setup"
    bash --noprofile --norc -eo pipefail -c "$MCPSCOPE_SETUP"
    code=$?
    echo "::endgroup::"
    ((code == 0)) || { echo "::error title=mcpscope::the setup failed (exit $code)"; echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"; exit "$code"; }
fi
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
