#!/bin/sh
# Installs mcpscope's release binary for this machine into a user directory.
#
#   curl -fsSL https://github.com/mcpscope/mcpscope/releases/latest/download/install.sh | sh
#
# Environment:
#   MCPSCOPE_VERSION      version to install (default: the one this script came with)
#   MCPSCOPE_INSTALL_DIR  where the binary goes (default: $HOME/.local/bin)
#   MCPSCOPE_INSTALL_BASE where the archives and SHA256SUMS are (default: the
#                         GitHub release of that version); http(s):// or file://
#
# It downloads mcpscope-VERSION-TARGET.tar.gz and SHA256SUMS, refuses the
# archive unless its SHA-256 is the one listed, and never needs root.
set -eu

VERSION="${MCPSCOPE_VERSION:-@VERSION@}"
REPO="@REPO@"
BASE="${MCPSCOPE_INSTALL_BASE:-https://github.com/$REPO/releases/download/v$VERSION}"
DEST="${MCPSCOPE_INSTALL_DIR:-$HOME/.local/bin}"

say() { printf '%s\n' "mcpscope-install: $*"; }
die() { printf '%s\n' "mcpscope-install: error: $*" >&2; exit 1; }

target() {
    os=$(uname -s)
    arch=$(uname -m)
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) die "no prebuilt binary for the CPU '$arch'; build from source: cargo install mcpscope" ;;
    esac
    case "$os" in
        Linux) echo "$arch-unknown-linux-musl" ;;
        Darwin) echo "$arch-apple-darwin" ;;
        *) die "no prebuilt binary for the system '$os' (on Windows use install.ps1); build from source: cargo install mcpscope" ;;
    esac
}

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then
        curl --proto '=https,http,file' -fsSL "$1" -o "$2" || die "cannot download $1"
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1" || die "cannot download $1"
    else
        die "neither curl nor wget is installed"
    fi
}

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d' ' -f1
    else
        die "neither sha256sum nor shasum is installed: cannot verify the download"
    fi
}

TARGET=$(target)
ARCHIVE="mcpscope-$VERSION-$TARGET.tar.gz"
TMP=$(mktemp -d 2>/dev/null || mktemp -d -t mcpscope)
trap 'rm -rf "$TMP"' EXIT INT TERM

say "downloading $ARCHIVE"
fetch "$BASE/SHA256SUMS" "$TMP/SHA256SUMS"
fetch "$BASE/$ARCHIVE" "$TMP/$ARCHIVE"

want=$(awk -v f="$ARCHIVE" '$2 == f || $2 == "*" f { print $1 }' "$TMP/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS lists no $ARCHIVE"
got=$(sha256 "$TMP/$ARCHIVE")
[ "$got" = "$want" ] || die "checksum mismatch for $ARCHIVE (expected $want, got $got): refusing to install"

tar -xzf "$TMP/$ARCHIVE" -C "$TMP" || die "cannot unpack $ARCHIVE"
mkdir -p "$DEST" || die "cannot create $DEST"
cp "$TMP/mcpscope-$VERSION-$TARGET/mcpscope" "$DEST/mcpscope.tmp" && chmod 755 "$DEST/mcpscope.tmp" &&
    mv -f "$DEST/mcpscope.tmp" "$DEST/mcpscope" || die "cannot write $DEST/mcpscope"

say "installed $DEST/mcpscope ($("$DEST/mcpscope" --version 2>/dev/null || echo "version unknown"))"
case ":$PATH:" in
    *":$DEST:"*) ;;
    *) say "add it to your PATH, e.g. in ~/.profile:  export PATH=\"$DEST:\$PATH\"" ;;
esac
say "man pages and shell completions are in the archive: $BASE/$ARCHIVE"
