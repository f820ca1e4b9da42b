#!/usr/bin/env bash
# Smoke suite of one release build, run by the release workflow on the
# target's own runner (Linux, macOS, Windows): --version, a headless call
# against the built-in demo server, and a recorded trace read back with
# `replay --print`.
#
# Usage: bash packaging/smoke.sh TARGET   (after packaging/dist.sh TARGET)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target="$1"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
case "$target" in
    *windows*) unzip -q "target/dist/mcpscope-$version-$target.zip" -d "$work"; exe=mcpscope.exe ;;
    *) tar -xzf "target/dist/mcpscope-$version-$target.tar.gz" -C "$work"; exe=mcpscope ;;
esac
bin="$work/mcpscope-$version-$target/$exe"

fail() { echo "FAIL $*" >&2; exit 1; }

v="$("$bin" --version)"
[[ "$v" == "mcpscope $version" ]] || fail "--version printed '$v'"
echo "ok   --version: $v"

out="$("$bin" call --demo --tool build_report --args '{"tasks":3,"delay_ms":1}' --record "$work/session.jsonl" 2>"$work/err")" ||
    fail "headless call exited $?: $(cat "$work/err")"
grep -q '"content"' <<<"$out" || fail "no result on stdout: $out"
grep -q '\[progress\] build_report 3/3' "$work/err" || fail "no progress on stderr: $(cat "$work/err")"
echo "ok   headless call against the demo server"

"$bin" replay "$work/session.jsonl" --print >"$work/replay" 2>&1 || fail "replay --print exited $?: $(cat "$work/replay")"
grep -q 'notifications/progress' "$work/replay" || fail "replay --print shows no progress: $(head -c 1000 "$work/replay")"
echo "ok   replay --print of the recorded trace"
