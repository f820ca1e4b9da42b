#!/usr/bin/env bash
# Installs what packaging/dist.sh wrote into target/dist/ the way users do,
# each into a clean prefix whose PATH holds no cargo or rustc, and runs it:
#   - the size gate of the shipped binary (see \$limit);
#   - npm: the launcher and the platform tarball installed offline, then
#     `npx mcpscope --version` (timed: ≤ 5 s with the install), a headless
#     call against the demo server, the TUI under tmux, a signal passed on;
#   - the wheel in a fresh venv, then `mcpscope --version` and a call;
#   - install.sh from a loopback HTTP server: a good install, a tampered
#     archive refused, an unknown platform refused.
#
# Usage: bash packaging/check-install.sh [TARGET]   (default: the host's musl target)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target="${1:-x86_64-unknown-linux-musl}"
dist="$(realpath target/dist)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
# The budget: 10 MB (docs/performance.md, "The shipped binary"). A feature
# that would take the shipped binary over it fails here, not unseen.
limit=$((10 * 1000 * 1000))

work="$(mktemp -d /tmp/mcpscope-install.XXXXXX)"
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    tmux -L mcpscope-install kill-server 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

passed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*" >&2; exit 1; }

# A PATH with node, python and the system tools, and nothing of Rust's.
node_dir="$(dirname "$(command -v node)")"
clean_path="$work/bin:/usr/local/bin:/usr/bin:/bin"
[[ "$node_dir" == /usr/bin || "$node_dir" == /usr/local/bin ]] || clean_path="$clean_path:$node_dir"
mkdir -p "$work/bin"
for tool in cargo rustc; do
    if PATH="$clean_path" command -v "$tool" >/dev/null; then
        # Shadow any system-wide copy so nothing below can use it.
        printf '#!/bin/sh\necho "%s is not available here" >&2; exit 127\n' "$tool" > "$work/bin/$tool"
        chmod +x "$work/bin/$tool"
    fi
done
clean() { env -i HOME="$work/home" PATH="$clean_path" TERM="${TERM:-xterm-256color}" LANG=C.UTF-8 "$@"; }
mkdir -p "$work/home"

# A headless call against the demo server: the result on stdout, progress on stderr.
headless_call() { # MCPSCOPE_COMMAND...
    local out
    out="$(clean "$@" call --demo --tool build_report --args '{"tasks":3,"delay_ms":1}' 2>"$work/call.err")" ||
        fail "headless call exited $? ($(head -c 500 "$work/call.err"))"
    grep -q '"content"' <<<"$out" || fail "headless call printed no result: $out"
    grep -q '^\[progress\] build_report 3/3' "$work/call.err" || fail "headless call showed no progress: $(head -c 500 "$work/call.err")"
}

# 1. The size budget.
archive="$dist/mcpscope-$version-$target.tar.gz"
[[ -f $archive ]] || fail "no archive $archive: run bash packaging/dist.sh $target first"
tar -xzf "$archive" -C "$work"
bin="$work/mcpscope-$version-$target/mcpscope"
size=$(stat -c %s "$bin")
((size <= limit)) || fail "the shipped binary is $size bytes, over the budget of $limit"
ok "shipped binary $size bytes (budget $limit)"
for f in LICENSE-MIT LICENSE-APACHE README.md man/mcpscope.1 man/mcpscope-call.1 completions/mcpscope.bash completions/_mcpscope completions/mcpscope.fish; do
    [[ -s "$work/mcpscope-$version-$target/$f" ]] || fail "the archive lacks $f"
done
ok "archive holds the binary, licences, README, man pages and completions"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match target/dist"
ok "SHA256SUMS matches"
file "$bin" 2>/dev/null | grep -qE 'statically linked|static-pie linked' && ok "the Linux binary is static"

# The shipped binary aborts on panic (the ship profile): a UI bug must
# still restore the terminal and stop the server it started (the panic
# hook of crates/core/src/platform/started.rs and src/tui/terminal.rs).
tmux -L mcpscope-install new-session -d -x 120 -y 30 \
    "env -i HOME='$work/home' PATH='$clean_path' TERM=xterm-256color LANG=C.UTF-8 MCPSCOPE_TEST_PANIC=ui '$bin' demo 2>'$work/panic.err'; echo EXITED \$?; stty -a | grep -qw -- -icanon && echo RAW || echo COOKED; sleep 30"
panic_server=
for _ in $(seq 100); do
    screen="$(tmux -L mcpscope-install capture-pane -p 2>/dev/null || true)"
    panic_server="$(pgrep -f -- "$bin demo-server" | head -n1 || true)"
    grep -q "upload_file" <<<"$screen" && [[ -n $panic_server ]] && break
    sleep 0.1
done
[[ -n $panic_server ]] || fail "the TUI (MCPSCOPE_TEST_PANIC=ui) did not start its demo server: $screen"
tmux -L mcpscope-install send-keys x
for _ in $(seq 100); do
    screen="$(tmux -L mcpscope-install capture-pane -p 2>/dev/null || true)"
    grep -q "COOKED\|RAW" <<<"$screen" && break
    sleep 0.1
done
grep -q "EXITED 134" <<<"$screen" || fail "a UI panic did not abort (want exit 134): $screen"
grep -q "COOKED" <<<"$screen" || fail "a UI panic left the terminal in raw mode: $screen"
[[ "$(tmux -L mcpscope-install display -p '#{alternate_on}')" == 0 ]] || fail "a UI panic left the alternate screen on"
grep -q "deliberate panic" "$work/panic.err" || fail "the panic message was not printed: $(head -c 500 "$work/panic.err")"
# Gone, or a zombie left to init (the abort leaves nobody to reap it).
gone() { ! kill -0 "$1" 2>/dev/null || grep -q ') Z' "/proc/$1/stat" 2>/dev/null; }
for _ in $(seq 100); do gone "$panic_server" && break; sleep 0.05; done
gone "$panic_server" || fail "the demo server ($panic_server) outlived a UI panic"
tmux -L mcpscope-install kill-server 2>/dev/null || true
ok "a UI panic (panic = abort) restores the terminal and stops the server"

# 2. npm, offline: nothing is fetched at install time.
case "$target" in
    x86_64-*) npm_pkg=mcpscope-linux-x64 ;;
    aarch64-*) npm_pkg=mcpscope-linux-arm64 ;;
esac
prefix="$work/npm"
mkdir -p "$prefix"
start=$(date +%s%N)
clean npm install --prefix "$prefix" --offline --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error \
    "$dist/npm/$npm_pkg-$version.tgz" "$dist/npm/mcpscope-$version.tgz" >"$work/npm.log" 2>&1 ||
    fail "npm install: $(tail -5 "$work/npm.log")"
v="$(cd "$prefix" && clean npx --no-install mcpscope --version)" || fail "npx mcpscope --version failed"
took=$((($(date +%s%N) - start) / 1000000))
[[ "$v" == "mcpscope $version" ]] || fail "npx mcpscope --version printed '$v'"
((took <= 5000)) || fail "npm install + first npx mcpscope --version took ${took} ms (budget 5000)"
ok "npm install (offline) + npx mcpscope --version in ${took} ms: $v"
npx_bin="$prefix/node_modules/.bin/mcpscope"
headless_call "$npx_bin"
ok "npm: headless call against the demo server"
# The launcher passes the exit code through (2: a usage error).
set +e; clean "$npx_bin" call --no-such-flag >/dev/null 2>&1; rc=$?; set -e
((rc == 2)) || fail "npm launcher turned exit code 2 into $rc"
ok "npm: exit code passed through"
# A SIGTERM sent to the launcher reaches the binary, which stops its server.
descendants() { # PID: every process below it
    local c
    for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}
demo_server_under() { # PID: the demo server's pid below PID, if any
    local p
    for p in $(descendants "$1"); do
        grep -q 'demo-server' "/proc/$p/cmdline" 2>/dev/null && { echo "$p"; return; }
    done
}
# A simple command in the background is exec'd: $! is the launcher itself.
env -i HOME="$work/home" PATH="$clean_path" "$npx_bin" call --demo --tool sleep --args '{"ms":60000}' \
    >/dev/null 2>"$work/sig.err" &
launcher=$!
server=
for _ in $(seq 200); do server="$(demo_server_under "$launcher")"; [[ -n $server ]] && break; sleep 0.05; done
[[ -n $server ]] || fail "the demo server never started under the launcher: $(cat "$work/sig.err")"
kill -TERM "$launcher"
set +e; wait "$launcher"; rc=$?; set -e
((rc == 143)) || fail "launcher ended with $rc after SIGTERM (want 143, the binary's): $(cat "$work/sig.err")"
for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
kill -0 "$server" 2>/dev/null && fail "the demo server ($server) outlived a SIGTERM to the launcher"
ok "npm: SIGTERM to the launcher stops mcpscope and its server (exit 143)"
# The TUI through npx, in a real terminal.
tmux -L mcpscope-install new-session -d -x 120 -y 30 \
    "cd '$prefix' && env -i HOME='$work/home' PATH='$clean_path' TERM=xterm-256color LANG=C.UTF-8 npx --no-install mcpscope demo; echo EXITED \$?; sleep 30"
seen=
for _ in $(seq 100); do
    screen="$(tmux -L mcpscope-install capture-pane -p 2>/dev/null || true)"
    # Drawn and connected: the Timeline pane and the server's name in the
    # header (the Tools column shows only while it is focused).
    if grep -q "Timeline" <<<"$screen" && grep -q "mcpscope-demo" <<<"$screen"; then seen=1; break; fi
    sleep 0.1
done
[[ -n $seen ]] || fail "the TUI did not draw under npx: $screen"
tmux -L mcpscope-install send-keys q
for _ in $(seq 100); do
    screen="$(tmux -L mcpscope-install capture-pane -p 2>/dev/null || true)"
    grep -q "EXITED 0" <<<"$screen" && break
    sleep 0.1
done
grep -q "EXITED 0" <<<"$screen" || fail "the TUI under npx did not quit with 0: $screen"
tmux -L mcpscope-install kill-server 2>/dev/null || true
ok "npm: npx mcpscope demo draws the TUI and quits cleanly"

# 3. The wheel in a fresh venv (pip, as pipx and uv install it).
wheel="$(ls "$dist"/pypi/mcpscope_bin-"$version"-py3-none-*"${target%%-*}"*.whl | head -n1)"
[[ -f $wheel ]] || fail "no wheel for $target in $dist/pypi"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --no-index --quiet "$wheel" || fail "pip install $wheel"
v="$(clean "$work/venv/bin/mcpscope" --version)"
[[ "$v" == "mcpscope $version" ]] || fail "the wheel's mcpscope --version printed '$v'"
headless_call "$work/venv/bin/mcpscope"
ok "wheel: installs in a fresh venv; --version and a headless call work"

# 4. install.sh from a local base URL.
serve() { # DIR → sets $base
    python3 - "$1" >"$work/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
    server_pid=$!
    for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.05; done
    base="http://127.0.0.1:$(cat "$work/port")"
}
serve "$dist"
clean MCPSCOPE_INSTALL_BASE="$base" MCPSCOPE_INSTALL_DIR="$work/home/.local/bin" sh "$dist/install.sh" >"$work/inst.out" 2>&1 ||
    fail "install.sh: $(cat "$work/inst.out")"
v="$("$work/home/.local/bin/mcpscope" --version)"
[[ "$v" == "mcpscope $version" ]] || fail "installed mcpscope --version printed '$v'"
grep -q 'add it to your PATH' "$work/inst.out" || fail "install.sh did not say what to add to PATH: $(cat "$work/inst.out")"
ok "install.sh: verified and installed into a user directory ($v)"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=

# A tampered archive: the checksum no longer matches, nothing is installed.
cp -r "$dist" "$work/tampered"
python3 - "$work/tampered/mcpscope-$version-$target.tar.gz" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xFF
open(p, "wb").write(b)
PY
rm -f "$work/port"; serve "$work/tampered"
set +e
clean MCPSCOPE_INSTALL_BASE="$base" MCPSCOPE_INSTALL_DIR="$work/tampered-bin" sh "$dist/install.sh" >"$work/inst.out" 2>&1
rc=$?
set -e
((rc != 0)) || fail "install.sh installed a tampered archive"
grep -q 'checksum mismatch' "$work/inst.out" || fail "install.sh did not say why: $(cat "$work/inst.out")"
[[ ! -e "$work/tampered-bin/mcpscope" ]] || fail "install.sh left a binary behind after a checksum mismatch"
ok "install.sh: a tampered archive is refused (exit $rc), nothing installed"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=

# The GitHub Action (action.yml), its two steps run as the runner runs them:
# the environment it sets, a release served from target/dist/.
gh="$work/gh"
mkdir -p "$gh/mcp"
: >"$gh/path"; : >"$gh/output"; : >"$gh/summary"
serve "$dist"
tool="$gh/tool/$version"
clean MCPSCOPE_VERSION="$version" MCPSCOPE_RELEASE_BASE="$base" MCPSCOPE_TOOL_DIR="$tool" MCPSCOPE_CACHED= \
    GITHUB_PATH="$gh/path" bash action/install.sh >"$gh/install.out" 2>&1 || fail "action install: $(cat "$gh/install.out")"
[[ "$(cat "$gh/path")" == "$tool" ]] || fail "action install put '$(cat "$gh/path")' on GITHUB_PATH"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
# A cache hit installs nothing (the release is no longer served) and checks the version.
: >"$gh/path"
clean MCPSCOPE_VERSION="$version" MCPSCOPE_RELEASE_BASE="http://127.0.0.1:9" MCPSCOPE_TOOL_DIR="$tool" MCPSCOPE_CACHED=true \
    GITHUB_PATH="$gh/path" bash action/install.sh >"$gh/install.out" 2>&1 || fail "action install from the cache: $(cat "$gh/install.out")"
grep -q 'from the cache' "$gh/install.out" && [[ "$(cat "$gh/path")" == "$tool" ]] || fail "action cache: $(cat "$gh/install.out")"
cat >"$gh/mcp/demo.toml" <<'TOML'
[server]
demo = true

[[case]]
name = "upload"
tool = "upload_file"
arguments = { size = 1024 }
[case.expect]
progress = { count = 10 }

[[case]]
name = "late progress"
tool = "fault_after_response"
[case.expect]
progress_before_response = true
TOML
set +e
clean PATH="$tool:$clean_path" MCPSCOPE_COMMAND=test MCPSCOPE_ARGS="$gh/mcp/demo.toml" GITHUB_OUTPUT="$gh/output" \
    GITHUB_STEP_SUMMARY="$gh/summary" bash action/run.sh >"$gh/run.out" 2>&1
rc=$?
set -e
((rc == 1)) || fail "action run: exit $rc, want 1: $(cat "$gh/run.out")"
grep -q "^::error file=$gh/mcp/demo.toml,line=15,title=mcpscope test%3A late progress::progress_before_response" "$gh/run.out" ||
    fail "action run: no annotation at the failing expectation: $(cat "$gh/run.out")"
grep -qx 'exit-code=1' "$gh/output" || fail "action run: output $(cat "$gh/output")"
grep -q '^## mcpscope test: 1 of 2 failed' "$gh/summary" || fail "action run: summary $(cat "$gh/summary")"
# Arguments are lines: one with a space stays one argument.
set +e
clean PATH="$tool:$clean_path" MCPSCOPE_COMMAND=test MCPSCOPE_ARGS="$gh/mcp/no such.toml" GITHUB_OUTPUT="$gh/output" \
    bash action/run.sh >"$gh/run.out" 2>&1
rc=$?
set -e
((rc == 2)) && grep -q "no such.toml" "$gh/run.out" || fail "action run with a spaced argument: exit $rc, $(cat "$gh/run.out")"
ok "action: installs the checksummed release (then from the cache), annotates the failing expectation, writes the summary, exits 1"

# An unknown platform: a clear refusal before anything is downloaded.
mkdir -p "$work/fake"
printf '#!/bin/sh\ncase "$1" in -s) echo SunOS;; -m) echo sparc64;; esac\n' > "$work/fake/uname"
chmod +x "$work/fake/uname"
set +e
env -i HOME="$work/home" PATH="$work/fake:$clean_path" MCPSCOPE_INSTALL_BASE="http://127.0.0.1:9" \
    MCPSCOPE_INSTALL_DIR="$work/nowhere" sh "$dist/install.sh" >"$work/inst.out" 2>&1
rc=$?
set -e
((rc != 0)) && grep -q 'no prebuilt binary' "$work/inst.out" || fail "install.sh on an unknown platform: rc $rc, $(cat "$work/inst.out")"
ok "install.sh: an unknown platform is refused with a clear message"

echo "check-install: $passed checks passed"
