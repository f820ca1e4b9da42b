#!/bin/sh
# Regenerate the README screenshots: real renders of the real app (main
# screen, raw, logs, a finished run, 80x24 tabs, the Findings pane, the
# Network pane of an HTTP session, `attach` on a live proxy session, a form,
# tasks, the Scope view, breakpoints holding a call's result).
#
#   screenshots/generate.sh              # all of them
#   screenshots/generate.sh network      # only some: demo (main, raw, logs,
#                                        # finished), light, medium (120x30), narrow, findings, network,
#                                        # attach, intercept, form, task, browse, scope, html (task and
#                                        # browse need the test peers:
#                                        # tests/peers/install.sh)
#
# Builds the release binary, runs `mcpscope demo` in a detached tmux
# session (160x48, and 80x24 for the narrow layout), drives it with keys,
# captures the screen with colours (`capture-pane -e`) and renders each
# capture to PNG with screenshots/ansi2png.py (Python 3 + Pillow, DejaVu
# fonts). The .ans captures are kept next to the PNGs.
# Needs: cargo, tmux, python3 with Pillow (pip install pillow), fonts-dejavu-core;
# the task step needs server-everything (bash tests/peers/install.sh).
set -eu
cd "$(dirname "$0")/.."
OUT=screenshots
cargo build --release --quiet
BIN="$PWD/target/release/mcpscope"
CONF="$(mktemp -d)"   # an empty config dir: default theme and keys
SOCK=""
SERVER_PID=""
HOST_PID=""
RT=""
cleanup() {
    # Under `set -e` a failing last command of an && list ends the script
    # (a process that is already gone, say): each step says `|| true`.
    [ -n "$SOCK" ] && tmux -L "$SOCK" kill-server 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    [ -n "$HOST_PID" ] && kill "$HOST_PID" 2>/dev/null || true
    rm -rf "$CONF"
    [ -n "$RT" ] && rm -rf "$RT" || true
}
trap cleanup EXIT
STEPS=" ${*:-demo light medium narrow findings network attach intercept form task browse scope html} "
want() { case "$STEPS" in *" $1 "*) return 0 ;; esac; return 1; }

# start COLS ROWS ARGS... : a fresh tmux server and session running the demo
start() {
    cols=$1 rows=$2; shift 2
    start_cmd "$cols" "$rows" demo "$@"
}

# start_cmd COLS ROWS ARGS... : the same, for any mcpscope command line
start_cmd() {
    cols=$1 rows=$2; shift 2
    [ -n "$SOCK" ] && tmux -L "$SOCK" kill-server 2>/dev/null || true
    # A fresh socket per step: a server just killed may still hold its name.
    STEP=$(( ${STEP:-0} + 1 ))
    SOCK="mcpscope-shots-$$-$STEP"
    tmux -L "$SOCK" -f /dev/null new-session -d -x "$cols" -y "$rows" \
        "MCPSCOPE_CONFIG_DIR='$CONF' MCPSCOPE_RUNTIME_DIR='${RT:-}' TERM=xterm-256color COLORTERM=truecolor '$BIN' $*; sleep 600"
}

# wait_for REGEX [SECONDS] : poll the screen until it matches
wait_for() {
    deadline=$(( $(date +%s) + ${2:-30} ))
    until tmux -L "$SOCK" capture-pane -p | grep -Eq "$1"; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "timed out waiting for: $1" >&2
            tmux -L "$SOCK" capture-pane -p >&2
            exit 1
        fi
        sleep 0.05
    done
}

keys() { tmux -L "$SOCK" send-keys "$@"; }

# shot NAME COLS ROWS [light] : capture and render (light: on a light terminal)
shot() {
    tmux -L "$SOCK" capture-pane -e -p > "$OUT/$1.ans"
    python3 "$OUT/ansi2png.py" "$OUT/$1.ans" "$OUT/$1.png" "$2" "$3" ${4:-}
    echo "wrote $OUT/$1.png"
}

RUNS="--run 'upload_file {\"size_bytes\": 52428800, \"chunk_bytes\": 1048576, \"delay_ms\": 90}' \
      --run 'context_builder {\"duration_ms\": 9000}' \
      --run 'interactive_wizard {\"questions\": 4}' \
      --run 'build_report {\"tasks\": 8, \"delay_ms\": 700}' \
      --run 'pipeline_wait {\"polls\": 40, \"interval_ms\": 300}'"

if want light; then
# 1b. The light theme on a light terminal, at the same moment of the same run.
start 160 48 "--theme light --elicit defaults $RUNS"
wait_for '(1[6-9]|2[0-9])\.[0-9] MiB / 50\.0 MiB'
shot light 160 48 light
fi

if want demo; then
# 1. Main screen mid-progress.
# The wizard would wait for answers by hand: the defaults answer it here.
start 160 48 "--elicit defaults $RUNS"
wait_for '(1[6-9]|2[0-9])\.[0-9] MiB / 50\.0 MiB'
shot main-progress 160 48

# 2. Raw: a progress frame from the timeline, with a search.
keys 2 /
keys -l bytes
keys Enter 4 /
keys -l bytes
keys Enter
wait_for '"bytes" [1-9]/'
shot raw 160 48

# 3. Logs: level colours, an entry expanded, zoomed.
wait_for 'wrn:[1-9]'
keys 3 z k Enter
wait_for '^. +│ '
shot logs 160 48

# Escape is sent alone and awaited: followed at once by another key, the
# terminal would read the pair as Alt-key.
keys Escape
wait_for '2 Timeline'

# 4. A finished run: cancel the long poll, wait for everything to settle.
keys 1 G c
wait_for ' 0 in flight' 60
keys 2 BSpace
wait_for '2 Timeline · [0-9]+ rows · following'
shot finished 160 48
fi

if want medium; then
# 4b. 120x30, the full layout's smallest size, mid-progress. Progress has
# room for three calls there, the newest first: the upload is sent last so
# that its gauge is among them.
MEDIUM_RUNS="--run 'context_builder {\"duration_ms\": 9000}' \
      --run 'build_report {\"tasks\": 8, \"delay_ms\": 700}' \
      --run 'pipeline_wait {\"polls\": 40, \"interval_ms\": 300}' \
      --run 'upload_file {\"size_bytes\": 52428800, \"chunk_bytes\": 1048576, \"delay_ms\": 90}'"
start 120 30 "$MEDIUM_RUNS"
wait_for '(1[6-9]|2[0-9])\.[0-9] MiB / 50\.0 MiB'
shot main-120x30 120 30
fi

if want narrow; then
# 5. 80x24: panes become tabs.
start 80 24 "--run 'upload_file {\"size_bytes\": 52428800, \"chunk_bytes\": 1048576, \"delay_ms\": 90}' --run 'context_builder {}'"
wait_for '(1[0-9]|2[0-9])\.[0-9] MiB / 50\.0 MiB'
shot narrow-80x24 80 24
fi

if want findings; then
# 6. Findings: fault tools break progress rules; the Findings pane lists
#    them, Enter shows the first proving frame in Timeline and Raw.
start 160 48 "--run 'fault_not_increasing {}' --run 'fault_exceeds_total {}' --run 'fault_total_changed {}' \
      --run 'upload_file {\"size_bytes\": 4194304, \"chunk_bytes\": 524288, \"delay_ms\": 60}'"
wait_for '7 Findings · [0-9]+ errors? · [0-9]+ warnings?'
wait_for ' 0 in flight' 60
keys 7 g Enter
wait_for 'in Timeline and Raw'
shot findings 160 48
fi

if want network; then
# 7. Network: the demo server over Streamable HTTP, closing each request
#    stream early once so the client resumes it (resumption is the
#    handshake era's: --protocol legacy); the Network pane lists
#    every exchange, Enter shows the upload's stream in the timeline.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" demo-server --http "127.0.0.1:$PORT" --sse-close-after 3 >/dev/null 2>&1 &
SERVER_PID=$!
deadline=$(( $(date +%s) + 30 ))
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null; do
    [ "$(date +%s)" -ge "$deadline" ] && { echo "the demo server did not listen on $PORT" >&2; exit 1; }
    sleep 0.05
done
start_cmd 160 48 "--protocol legacy --url http://127.0.0.1:$PORT/mcp \
      --run 'upload_file {\"size_bytes\": 8388608, \"chunk_bytes\": 1048576, \"delay_ms\": 120}' \
      --run 'build_report {\"tasks\": 4, \"delay_ms\": 300}'"
wait_for 'upload_file .*done in' 60
wait_for 'build_report .*done in' 60
# Select the upload's POST: from the last exchange up, one row at a time.
keys 8 G
n=0
until tmux -L "$SOCK" capture-pane -p | grep -Eq '▸post:[0-9]+ POST .*upload_file'; do
    n=$((n + 1))
    [ "$n" -gt 30 ] && { echo "no upload exchange in the Network pane" >&2; exit 1; }
    keys k
    sleep 0.05
done
keys Enter
wait_for 'timeline: channel post:'
keys 8
wait_for '┏ 8 Network'
shot network 160 48
fi

if want attach; then
# 8. attach: a host (mcpscope's own headless client) runs the demo server
#    through `mcpscope proxy`; the TUI attaches to the live session late.
RT="$(mktemp -d)"
MCPSCOPE_RUNTIME_DIR="$RT" "$BIN" call --tool build_report --args '{"tasks": 40, "delay_ms": 400}' \
    --log-level debug -- "$BIN" proxy --name build -- "$BIN" demo-server >/dev/null 2>&1 &
HOST_PID=$!
deadline=$(( $(date +%s) + 30 ))
until MCPSCOPE_RUNTIME_DIR="$RT" "$BIN" sessions | grep -q '^build '; do
    [ "$(date +%s)" -ge "$deadline" ] && { echo "no proxy session appeared" >&2; exit 1; }
    sleep 0.05
done
start_cmd 160 48 "attach build"
wait_for ' (1[2-9]|2[0-9]) / 40 '
shot attach 160 48
fi

if want intercept; then
# 8b. Breakpoints: a host (mcpscope's headless client) runs the demo server
#     through `mcpscope proxy --intercept`; the TUI attaches with
#     --intercept, sets a breakpoint on the call's result and holds it
#     while the next call's progress goes on.
RT="$(mktemp -d)"
MCPSCOPE_RUNTIME_DIR="$RT" "$BIN" call --tool build_report --args '{"tasks": 6, "delay_ms": 500}' \
    -- "$BIN" proxy --intercept --name build -- "$BIN" demo-server >/dev/null 2>&1 &
HOST_PID=$!
deadline=$(( $(date +%s) + 30 ))
until MCPSCOPE_RUNTIME_DIR="$RT" "$BIN" sessions | grep -q '^build '; do
    [ "$(date +%s)" -ge "$deadline" ] && { echo "no proxy session appeared" >&2; exit 1; }
    sleep 0.05
done
start_cmd 120 30 "attach build --intercept"
wait_for 'no breakpoint'
keys I
wait_for 'Intercept'
keys b
keys -l 'in && response && method == tools/call'
keys Enter
wait_for '▶ #1 '
wait_for 'oldest [3-9]\.[0-9]s'
shot intercept 120 30
fi

if want form; then
# 9. The server asks: the wizard's first elicitation form, opened with A,
#    a new name typed over the default.
start 100 30 "--run 'interactive_wizard {\"questions\": 3, \"delay_ms\": 300}'"
wait_for '⚑ 1 waiting'
keys A
wait_for 'Project name'
keys -N 13 BSpace
keys -l release-bot
wait_for 'release-bot'
shot form 100 30
fi

if want task; then
# 10. Tasks: server-everything's research tool runs as a task (its
#     taskSupport is required). Two of them: one runs to completed, the
#     ambiguous one waits in input_required for its clarification; the
#     details view of the second lists its status history.
EVERYTHING="$PWD/tests/peers/.installed/node/node_modules/.bin/mcp-server-everything"
[ -x "$EVERYTHING" ] || { echo "server-everything is missing: bash tests/peers/install.sh" >&2; exit 1; }
# On PATH (a fresh tmux server inherits it): the composer's command line
# then names the server as a user would.
PATH="$(dirname "$EVERYTHING"):$PATH"
export PATH
start_cmd 160 48 "--run 'simulate-research-query {\"topic\": \"rust\"}' \
      --run 'simulate-research-query {\"topic\": \"python\", \"ambiguous\": true}' \
      -- mcp-server-everything stdio"
wait_for '… completed  done in' 60
wait_for '… input_required' 60
keys 1 j d
wait_for '── task '
shot task 160 48
fi

if want browse; then
# 11. Resources and prompts on server-everything: a subscribed resource
#     counting the server's updates, then the completable prompt's form with
#     the second argument completed from the first.
EVERYTHING="$PWD/tests/peers/.installed/node/node_modules/.bin/mcp-server-everything"
if [ ! -x "$EVERYTHING" ]; then
    echo "skipping browse: server-everything is not installed (tests/peers/install.sh)" >&2
else
start_cmd 100 30 "--run 'toggle-subscriber-updates {}' -- '$EVERYTHING' stdio"
wait_for 'connected'
keys 5 t
wait_for 'architecture.md'
keys s
wait_for '↻1'
shot resources 100 30
keys t
wait_for 'completable-prompt'
keys g j j Enter
wait_for 'prompts/get completable-prompt'
keys -l Eng
wait_for 'Tab take value'
keys Tab Down
keys -l A
wait_for 'Alice'
shot prompt-form 100 30
fi
fi

if want scope; then
# 12. Scope: the session on a time axis. Interleaved calls, a buffered
#     burst (fault_buffered: every tick just before the response), progress
#     after the response (fault_after_response), logs by level; once all
#     have ended, the whole session fitted to the screen.
start 160 48 "--run 'upload_file {\"size_bytes\": 4194304, \"chunk_bytes\": 262144, \"delay_ms\": 150}' \
      --run 'fault_buffered {}' --run 'fault_after_response {}' \
      --run 'build_report {\"tasks\": 6, \"delay_ms\": 400}'"
wait_for 'build_report .*done in' 60
wait_for 'fault_buffered .*done in' 60
wait_for ' 0 in flight' 60
keys 9 w
wait_for '┏ 9 Scope .* per width'
shot scope 160 48
fi

if want html; then
# 13. The HTML export (docs/export.md): one demo session's page at two
#     sizes, rendered by headless Chromium (apt-get install chromium).
MCPSCOPE_BLESS_SCREENSHOTS=1 cargo test --quiet --test cli export_html::screenshots -- --include-ignored
fi
