#!/usr/bin/env bash
# The action's install step (action.yml): the release archive for this
# runner, checked against the release's SHA256SUMS by packaging/install.sh,
# into the tool cache, then onto the job's PATH.
#
# Environment (set by action.yml; the checks in packaging/check-install.sh
# set them the same way): MCPSCOPE_VERSION, MCPSCOPE_RELEASE_BASE (empty:
# the GitHub release), MCPSCOPE_TOOL_DIR, MCPSCOPE_CACHED (`true` when the
# cache restored the directory), GITHUB_PATH.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${MCPSCOPE_VERSION:?}"
dir="${MCPSCOPE_TOOL_DIR:?}"
base="${MCPSCOPE_RELEASE_BASE:-https://github.com/mcpscope/mcpscope/releases/download/v$version}"

if [[ "${MCPSCOPE_CACHED:-}" == true && -x "$dir/mcpscope" ]]; then
    echo "mcpscope $version: from the cache ($dir)"
else
    MCPSCOPE_VERSION="$version" MCPSCOPE_INSTALL_BASE="$base" MCPSCOPE_INSTALL_DIR="$dir" \
        sh "$here/packaging/install.sh"
fi
# The binary must be the version asked for, whatever the cache held.
got="$("$dir/mcpscope" --version)"
[[ "$got" == "mcpscope $version" ]] || { echo "::error title=mcpscope::installed '$got', expected mcpscope $version"; exit 1; }
echo "$dir" >> "${GITHUB_PATH:?}"
