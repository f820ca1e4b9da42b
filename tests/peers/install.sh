#!/usr/bin/env bash
# Installs the pinned MCP peer servers used by mcpscope's integration tests into
# tests/peers/.installed/ (git-ignored). Idempotent: a stamp holding a hash of the
# pin files makes a second run near-instant. Set MCPSCOPE_PEERS_FORCE=1 to reinstall.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/.installed"
stamp="$dest/stamp"

# The rmcp peer's source is in the hash too: a change to it needs a rebuild.
pins=("$here/node/package.json" "$here/node/package-lock.json" "$here/requirements.txt"
      "$here/requirements-fastmcp.txt" "$here/requirements-phoenix.txt" "$here/rmcp_server/Cargo.toml"
      "$here/rmcp_server/Cargo.lock" "$here/rmcp_server/src/main.rs" "$here/install.sh")
want="$(cat "${pins[@]}" | sha256sum | cut -d' ' -f1)"

node_entry="$dest/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
# The conformance suite needs Node >= 22; npm `node@22` ships that binary, so the
# suite never depends on the machine's node.
node22="$dest/node/node_modules/node/bin/node"
conformance="$dest/node/node_modules/@modelcontextprotocol/conformance/dist/index.js"
ts_sdk="$dest/node/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"
# The TypeScript SDK's example server with its demo OAuth provider (`--oauth`).
sdk_oauth="$dest/node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"
mermaid="$dest/node/node_modules/mermaid/dist/mermaid.core.mjs"
venv_py="$dest/venv/bin/python"
fastmcp_py="$dest/fastmcp-venv/bin/python"
# Arize Phoenix, the real OpenTelemetry backend: `$phoenix_py -m phoenix.server.main serve`.
phoenix_py="$dest/phoenix-venv/bin/python"
rmcp_target="$dest/rmcp-target"
rmcp_bin="$rmcp_target/release/mcpscope-rmcp-peer"

if [[ "${MCPSCOPE_PEERS_FORCE:-0}" != 1 && -f "$stamp" && "$(cat "$stamp")" == "$want" \
      && -f "$node_entry" && -x "$node22" && -f "$conformance" && -f "$ts_sdk" && -f "$sdk_oauth" && -f "$mermaid" \
      && -x "$venv_py" && -x "$fastmcp_py" && -x "$phoenix_py" && -x "$rmcp_bin" ]]; then
    echo "peers: already installed ($dest)"
    exit 0
fi

mkdir -p "$dest"
rm -f "$stamp"

# --- npm: @modelcontextprotocol/server-everything, @modelcontextprotocol/conformance and
# node@22 (exact versions via the committed lockfile; node's preinstall fetches the
# platform binary package of the same pinned version)
command -v npm >/dev/null || { echo "peers: npm is required" >&2; exit 1; }
mkdir -p "$dest/node"
cp "$here/node/package.json" "$here/node/package-lock.json" "$dest/node/"
echo "peers: npm ci -> $dest/node"
npm ci --prefix "$dest/node" --no-audit --no-fund --loglevel=error
test -f "$node_entry"
test -f "$conformance"
test -f "$ts_sdk"
test -f "$sdk_oauth"
test -f "$mermaid"
"$node22" --version >/dev/null

# --- Python venv with the official MCP SDK (mcp==2.3.0 and pinned deps)
python="${PYTHON:-python3}"
command -v "$python" >/dev/null || { echo "peers: $python is required" >&2; exit 1; }
if [[ ! -x "$venv_py" ]]; then
    echo "peers: creating venv $dest/venv ($("$python" --version 2>&1))"
    "$python" -m venv "$dest/venv"
fi
echo "peers: pip install -r requirements.txt -> $dest/venv"
"$venv_py" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"

# --- FastMCP (fastmcp==4.2.3 on the same mcp==2.3.0) in a venv of its own, so its pins never
# move the Python SDK peer's
if [[ ! -x "$fastmcp_py" ]]; then
    echo "peers: creating venv $dest/fastmcp-venv"
    "$python" -m venv "$dest/fastmcp-venv"
fi
echo "peers: pip install -r requirements-fastmcp.txt -> $dest/fastmcp-venv"
"$fastmcp_py" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-fastmcp.txt"

# --- Arize Phoenix (arize-phoenix==20.26.1), the OTLP backend the export tests send spans to and
# read back over its REST API, in a venv of its own: its pins are unrelated to the MCP peers'
if [[ ! -x "$phoenix_py" ]]; then
    echo "peers: creating venv $dest/phoenix-venv"
    "$python" -m venv "$dest/phoenix-venv"
fi
echo "peers: pip install -r requirements-phoenix.txt -> $dest/phoenix-venv"
"$phoenix_py" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-phoenix.txt"

# --- rmcp (the official Rust SDK, rmcp==3.11.0 and its locked dependencies): the peer in
# rmcp_server/ is its own workspace, never part of mcpscope's build
command -v cargo >/dev/null || { echo "peers: cargo is required" >&2; exit 1; }
echo "peers: cargo build --release rmcp_server -> $rmcp_target"
cargo build --release --locked --quiet --manifest-path "$here/rmcp_server/Cargo.toml" \
    --target-dir "$rmcp_target"
test -x "$rmcp_bin"

echo "$want" > "$stamp"

se_version="$(node -p "require('$dest/node/node_modules/@modelcontextprotocol/server-everything/package.json').version")"
mcp_version="$("$venv_py" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
conf_version="$("$node22" "$conformance" --version)"
echo "peers: installed @modelcontextprotocol/server-everything@$se_version (node $node_entry)"
sdk_version="$(node -p "require('$dest/node/node_modules/@modelcontextprotocol/sdk/package.json').version")"
echo "peers: installed @modelcontextprotocol/sdk@$sdk_version (example OAuth server $sdk_oauth)"
echo "peers: installed @modelcontextprotocol/conformance@$conf_version (run with node $("$node22" --version): $node22 $conformance)"
echo "peers: installed mcp==$mcp_version (python $venv_py)"
fastmcp_version="$("$fastmcp_py" -c 'import importlib.metadata as m; print(m.version("fastmcp"), "on mcp", m.version("mcp"))')"
echo "peers: installed fastmcp==$fastmcp_version (python $fastmcp_py)"
phoenix_version="$("$phoenix_py" -c 'import importlib.metadata as m; print(m.version("arize-phoenix"))')"
echo "peers: installed arize-phoenix==$phoenix_version (python $phoenix_py)"
rmcp_version="$(sed -n '/^name = "rmcp"$/{n;s/^version = "\(.*\)"$/\1/p}' "$here/rmcp_server/Cargo.lock")"
echo "peers: installed rmcp==$rmcp_version ($rmcp_bin)"
