#!/usr/bin/env bash
# The action's pull-request compare mode (action.yml, docs/ci.md): the
# server checked and recorded by `mcpscope check` at the base of the change
# and at its head, and `mcpscope diff` of the two sessions written to the
# job summary above the head's own check results. run.sh hands over to it
# when `compare-base` is set.
#
# Environment: MCPSCOPE_ARGS (check's arguments, one per line, as for
# run.sh), MCPSCOPE_COMPARE_BASE (the base: a commit or a ref, fetched from
# origin when the checkout lacks it), MCPSCOPE_COMPARE_FAIL_ON (less-safe,
# any or never), MCPSCOPE_SETUP (bash run in each checkout before its
# server starts), RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
set -uo pipefail

output() { echo "$1" >> "${GITHUB_OUTPUT:-/dev/null}"; }
# A workflow command's message: `%`, CR and LF would end or alter it.
escape() { local s="${1//%/%25}"; s="${s//$'\r'/%0D}"; printf '%s' "${s//$'\n'/%0A}"; }
annotate() { echo "::$1 title=mcpscope compare::$(escape "$2")"; }
finish() { # CODE COMPARE
    output "exit-code=$1"
    output "compare=$2"
    exit "$1"
}
usage() { annotate error "$1"; finish 2 not-compared; }

ref="${MCPSCOPE_COMPARE_BASE:?}"
fail_on="${MCPSCOPE_COMPARE_FAIL_ON:-less-safe}"
case "$fail_on" in
    less-safe | any | never) ;;
    *) usage "compare-fail-on must be less-safe, any or never, not '$fail_on'" ;;
esac
# The ref reaches git as an argument: one that reads as an option or a
# refspec (`-…`, `+…`, `a:b`) could make git do something else than fetch it.
if [[ "$ref" == [-+]* || "$ref" == *[:[:space:]]* ]]; then
    usage "compare-base must be a commit or a ref, not '$ref'"
fi

# check's options, then `--` and the server command: what compare mode adds
# goes before the `--`, so it never becomes part of the server's command.
opts=(check)
server=()
user_pins=
seen_dashes=
while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    if [[ -n $seen_dashes ]]; then
        server+=("$line")
        continue
    fi
    case "$line" in
        --) seen_dashes=1; server+=("$line"); continue ;;
        --record | --record=* | --trace | --trace=*)
            usage "compare-base runs the server on both sides and records them itself: leave ${line%%=*} out of args" ;;
        --write-baseline | --write-baseline=*) user_pins=1 ;;
    esac
    opts+=("$line")
done <<<"${MCPSCOPE_ARGS:-}"

top="$(git rev-parse --show-toplevel 2>/dev/null)" || usage "compare-base needs the working directory in a git checkout"
prefix="$(git rev-parse --show-prefix)"
head_short="$(git rev-parse --short HEAD)"

if ! base="$(git rev-parse --verify --quiet "$ref^{commit}")"; then
    # actions/checkout fetches one commit: the base is usually not there.
    depth=
    [[ "$(git rev-parse --is-shallow-repository)" == true ]] && depth=--depth=1
    echo "fetching the base $ref from origin"
    git fetch --quiet --no-tags ${depth:+"$depth"} origin "$ref" ||
        usage "compare-base '$ref' is neither in the checkout nor fetched from origin"
    base="$(git rev-parse --verify --quiet 'FETCH_HEAD^{commit}')" || usage "compare-base '$ref' is not a commit"
fi
base_short="$(git rev-parse --short "$base")"

tmp="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcpscope-compare.XXXXXX")" || finish 2 not-compared
tree="$tmp/base"
# shellcheck disable=SC2317 # run by the trap
cleanup() {
    git -C "$top" worktree remove --force "$tree" >/dev/null 2>&1
    rm -rf "$tmp"
    git -C "$top" worktree prune >/dev/null 2>&1
}
trap cleanup EXIT

# Output that holds the server's strings goes to the log with workflow
# commands off, so no line of it can act as one.
quoted() { # COMMAND...
    local stop
    stop="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    echo "::stop-commands::$stop"
    "$@"
    local rc=$?
    echo "::$stop::"
    return "$rc"
}
setup() { # DIR SIDE
    [[ -n "${MCPSCOPE_SETUP:-}" ]] || return 0
    echo "::group::setup at the $2"
    (cd "$1" && bash --noprofile --norc -eo pipefail -c "$MCPSCOPE_SETUP")
    local rc=$?
    echo "::endgroup::"
    return "$rc"
}
argv() { # SIDE EXTRA...: check's arguments at SIDE, into $argv
    argv=("${opts[@]}" --record "$tmp/$1.jsonl" "${@:2}")
    # A check that pins lists resources, templates and prompts too, and
    # needs no --tool: the whole surface is compared.
    [[ -n $user_pins ]] || argv+=("--write-baseline=$tmp/$1-pinned.json")
    ((${#server[@]} == 0)) || argv+=("${server[@]}")
}

# The base, in a worktree of its own. What it finds is its business: its
# report goes to the log, folded, and its session is the reference.
base_code=
skipped=
if ! git -C "$top" worktree add --quiet --detach "$tree" "$base" >/dev/null; then
    skipped="the base $base_short could not be checked out"
elif [[ ! -d "$tree/$prefix" ]]; then
    skipped="the working directory ${prefix:-.} is not in the base $base_short"
elif ! setup "$tree/$prefix" base; then
    skipped="the setup failed at the base $base_short"
else
    echo "::group::mcpscope check at the base $base_short"
    argv base
    (cd "$tree/$prefix" && unset GITHUB_STEP_SUMMARY && quoted mcpscope "${argv[@]}")
    base_code=$?
    echo "::endgroup::"
    [[ -s "$tmp/base.jsonl" ]] || skipped="mcpscope check recorded nothing at the base $base_short (exit $base_code)"
fi

# The head: its annotations and summary are the check's, as without compare mode.
setup "$PWD" head || { code=$?; annotate error "the setup failed at the head (exit $code)"; finish "$code" not-compared; }
argv head --format github
GITHUB_STEP_SUMMARY="$tmp/head.md" mcpscope "${argv[@]}"
head_code=$?
[[ -n $skipped || -s "$tmp/head.jsonl" ]] || skipped="mcpscope check recorded nothing at the head (exit $head_code)"

compare=not-compared
code=$head_code
verdict=
if [[ -z $skipped ]]; then
    (cd "$tmp" && mcpscope diff base.jsonl head.jsonl) >"$tmp/diff.txt" 2>"$tmp/diff.err"
    diff_code=$?
    quoted cat "$tmp/diff.txt" "$tmp/diff.err"
    less_safe="$(grep -c '^! ' "$tmp/diff.txt")"
    case "$diff_code" in
        0) compare=same; verdict="no differences" ;;
        1)
            compare=different
            ((less_safe > 0)) && compare=less-safe
            verdict="$(tail -n 1 "$tmp/diff.txt")"
            fails=
            [[ $fail_on == any || ($fail_on == less-safe && $compare == less-safe) ]] && fails=1
            if [[ -n $fails ]]; then
                verdict="$verdict — fails the check (compare-fail-on: $fail_on)"
                ((code == 0)) && code=1
            fi
            annotate "$([[ -n $fails ]] && echo error || echo warning)" "base $base_short → head $head_short: $verdict"
            ;;
        *)
            compare=not-compared
            skipped="mcpscope diff could not compare the sessions (exit $diff_code)"
            ((code == 0)) && code=$diff_code
            ;;
    esac
fi
[[ -n $skipped ]] && annotate warning "no comparison: $skipped"

if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    {
        echo "## mcpscope compare: base \`$base_short\` → head \`$head_short\`"
        echo
        if [[ -n $skipped ]]; then
            echo "**No comparison**: $skipped."
        else
            echo "**$verdict**"
            [[ -n $base_code && $base_code != 0 ]] && printf '\nThe check at the base exited %s (its report is in the log).\n' "$base_code"
            if [[ $compare != same ]]; then
                # The summary takes 1 MiB at most: a longer comparison is cut, whole in the log.
                limit=$((256 * 1024))
                shown="$tmp/diff.txt"
                if (($(wc -c <"$tmp/diff.txt") > limit)); then
                    head -c "$limit" "$tmp/diff.txt" | sed '$d' >"$tmp/diff.cut"
                    echo "… cut here: the whole comparison is in the log" >>"$tmp/diff.cut"
                    shown="$tmp/diff.cut"
                fi
                # A fence longer than any run of backticks in the text, which
                # would otherwise close it and let the rest read as Markdown.
                longest="$(grep -o '``*' "$shown" | awk '{ if (length > n) n = length } END { print n + 0 }')"
                fence='```'
                while ((${#fence} <= longest)); do fence="$fence\`"; done
                printf '\n<details open><summary>mcpscope diff base head</summary>\n\n%stext\n' "$fence"
                cat "$shown"
                printf '%s\n\n</details>\n' "$fence"
            fi
        fi
        echo
        cat "$tmp/head.md" 2>/dev/null
    } >>"$GITHUB_STEP_SUMMARY"
fi

finish "$code" "$compare"
