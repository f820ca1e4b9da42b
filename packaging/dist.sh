#!/usr/bin/env bash
# Builds the release files into target/dist/ (docs/install.md):
#
#   bash packaging/dist.sh [TARGET...]
#
# With no TARGET: every target this machine can build (the host's static
# Linux binary; aarch64 Linux and Windows when their cross toolchains are
# installed). For each target: the `ship` profile's binary, packed as
# mcpscope-VERSION-TARGET.tar.gz (.zip for Windows) with LICENSE-*, README,
# man pages and shell completions; its npm package (target/dist/npm/) and
# its wheel (target/dist/pypi/). Then the `mcpscope` npm launcher package,
# install.sh and install.ps1, and SHA256SUMS over everything at the top.
#
# MCPSCOPE_DIST_PROFILE=release builds with the everyday profile instead
# (quicker; for trying the packaging, never for a release).
# MCPSCOPE_REPO (owner/name) is the GitHub repository the installers point at.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile="${MCPSCOPE_DIST_PROFILE:-ship}"
repo="${MCPSCOPE_REPO:-mcpscope/mcpscope}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
python="${PYTHON:-python3}"
host="$(rustc -vV | sed -n 's/^host: //p')"
out=target/dist
stage="$out/.stage"

say() { echo "dist: $*" >&2; }
die() { echo "dist: error: $*" >&2; exit 1; }

# What each cross target needs on this machine, and how its C code (ring)
# and link are done. Debian: gcc-aarch64-linux-gnu, gcc-mingw-w64-x86-64.
can_build() {
    case "$1" in
        x86_64-unknown-linux-musl) [[ "$host" == x86_64-unknown-linux-gnu ]] ;;
        aarch64-unknown-linux-musl) command -v aarch64-linux-gnu-gcc >/dev/null ;;
        x86_64-pc-windows-gnu) command -v x86_64-w64-mingw32-gcc >/dev/null ;;
        *) return 1 ;;
    esac
}

if (($# == 0)); then
    set --
    for t in x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-pc-windows-gnu; do
        if can_build "$t"; then set -- "$@" "$t"; else say "skipping $t (no cross toolchain here)"; fi
    done
fi

# npm's names for a target's os and cpu (process.platform, process.arch).
npm_platform() {
    case "$1" in
        x86_64-unknown-linux-*) echo "linux x64" ;;
        aarch64-unknown-linux-*) echo "linux arm64" ;;
        x86_64-apple-darwin) echo "darwin x64" ;;
        aarch64-apple-darwin) echo "darwin arm64" ;;
        x86_64-pc-windows-*) echo "win32 x64" ;;
        *) die "no npm platform for $1" ;;
    esac
}

build() {
    local t="$1"
    rustup target list --installed | grep -qx "$t" || rustup target add "$t"
    case "$t" in
        aarch64-unknown-linux-musl)
            export CC_aarch64_unknown_linux_musl=aarch64-linux-gnu-gcc
            export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc ;;
        x86_64-unknown-linux-musl)
            # ring's C is compiled with the host's gcc: it needs no libc headers
            # that differ from musl's, and the crt comes with Rust's target.
            command -v musl-gcc >/dev/null && export CC_x86_64_unknown_linux_musl=musl-gcc ;;
    esac
    # The static Linux binaries (docs/performance.md, "The shipped binary",
    # has what each of these took off):
    #   - no position independence: a static-pie binary carries 0.4 MB of
    #     relocations it applies to itself at start;
    #   - they abort on panic (the ship profile), so no unwind tables: none
    #     emitted for our code, and the standard library's dropped at link
    #     time (packaging/discard-eh-frame.ld);
    #   - linked by Rust's own lld (shipped with every toolchain), folding
    #     identical functions (monomorphised copies) into one.
    #   - every target: the builder's paths (this checkout, cargo's
    #     registry) are not written into the binary, which names a panic's
    #     source file as `crate-version/src/file.rs` instead.
    local rustflags="" d
    for d in "$(pwd)" "${CARGO_HOME:-$HOME/.cargo}"/registry/src/* "${CARGO_HOME:-$HOME/.cargo}"/git/checkouts; do
        rustflags+="'--remap-path-prefix=$d/=', "
    done
    case "$t" in
        *-unknown-linux-musl)
            local lld_dir script
            lld_dir="$(rustc --print sysroot)/lib/rustlib/$host/bin/gcc-ld"
            script="$(pwd)/packaging/discard-eh-frame.ld"
            rustflags+="'-C', 'relocation-model=static', '-C', 'force-unwind-tables=no', '-C', 'link-arg=-B$lld_dir', '-C', 'link-arg=-fuse-ld=lld', '-C', 'link-arg=-Wl,--icf=all', '-C', 'link-arg=-Wl,--no-eh-frame-hdr', '-C', 'link-arg=-Wl,-T,$script'" ;;
    esac
    local flags=(--config "target.$t.rustflags=[${rustflags%, }]")
    say "building $t (profile $profile)"
    cargo build --locked --profile "$profile" --target "$t" ${flags[@]+"${flags[@]}"} --bin mcpscope >&2
}

# rustc's own stripping leaves the static musl binaries' symbol table in
# (about 2 MB): strip them with the target's binutils.
strip_binary() {
    local t="$1" bin strip_tool=
    bin="$(binary_of "$t")"
    case "$t" in
        x86_64-unknown-linux-*) strip_tool="strip" ;;
        aarch64-unknown-linux-*) strip_tool=aarch64-linux-gnu-strip ;;
        x86_64-pc-windows-gnu) strip_tool=x86_64-w64-mingw32-strip ;;
    esac
    # On its own runner, the host's strip is the target's.
    if [[ -n $strip_tool ]] && ! command -v "$strip_tool" >/dev/null && [[ $host == "${t%%-*}"-* ]]; then
        strip_tool="strip"
    fi
    if [[ -n $strip_tool ]] && command -v "$strip_tool" >/dev/null; then
        "$strip_tool" "$bin"
    fi
}

binary_of() {
    local dir="target/$1/$profile"
    [[ "$profile" == dev ]] && dir="target/$1/debug"
    case "$1" in *windows*) echo "$dir/mcpscope.exe" ;; *) echo "$dir/mcpscope" ;; esac
}

# Man pages and completions come from a binary that runs here: the host's
# own dist build if there is one, else an everyday release build.
doc_binary() {
    local t b
    for t in "$@"; do
        b="$(binary_of "$t")"
        if "$b" --version >/dev/null 2>&1; then echo "$b"; return; fi
    done
    cargo build --locked --release --bin mcpscope >&2
    echo target/release/mcpscope
}

rm -rf "$out"
mkdir -p "$out/npm" "$out/pypi" "$stage"
for t in "$@"; do can_build "$t" || [[ "${MCPSCOPE_DIST_FORCE:-0}" == 1 ]] || die "cannot build $t here (see can_build in this script)"; done
for t in "$@"; do build "$t"; strip_binary "$t"; done

docs_bin="$(doc_binary "$@")"
docs="$stage/docs"
mkdir -p "$docs/man" "$docs/completions"
"$docs_bin" man > "$docs/man/mcpscope.1"
for sub in $("$docs_bin" --help | awk '/^Commands:/{on=1;next} /^$/{on=0} on{print $1}' | grep -vx help); do
    "$docs_bin" man "$sub" > "$docs/man/mcpscope-$sub.1"
done
"$docs_bin" completions bash > "$docs/completions/mcpscope.bash"
"$docs_bin" completions zsh > "$docs/completions/_mcpscope"
"$docs_bin" completions fish > "$docs/completions/mcpscope.fish"
"$docs_bin" completions powershell > "$docs/completions/_mcpscope.ps1"
"$docs_bin" completions elvish > "$docs/completions/mcpscope.elv"

for t in "$@"; do
    bin="$(binary_of "$t")"
    [[ -f "$bin" ]] || die "no binary at $bin"
    name="mcpscope-$version-$t"
    dir="$stage/$name"
    mkdir -p "$dir"
    cp "$bin" "$dir/"
    cp LICENSE-MIT LICENSE-APACHE README.md "$dir/"
    cp -r "$docs/man" "$docs/completions" "$dir/"
    case "$t" in
        *windows*) (cd "$stage" && "$python" -m zipfile -c "../$name.zip" "$name") ;;
        *) tar -C "$stage" -czf "$out/$name.tar.gz" "$name" ;;
    esac

    # npm: one small package per platform, the binary and nothing else.
    read -r os cpu <<<"$(npm_platform "$t")"
    pkg="mcpscope-$os-$cpu"
    pdir="$stage/npm/$pkg"
    mkdir -p "$pdir/bin"
    cp "$bin" "$pdir/bin/"
    cp LICENSE-MIT LICENSE-APACHE "$pdir/"
    cat > "$pdir/package.json" <<JSON
{
  "name": "$pkg",
  "version": "$version",
  "description": "The mcpscope binary for $os $cpu (installed by the mcpscope package)",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "git+https://github.com/$repo.git" },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin", "LICENSE-MIT", "LICENSE-APACHE"],
  "preferUnplugged": true
}
JSON
    (cd "$pdir" && npm pack --silent --pack-destination "$OLDPWD/$out/npm" >/dev/null)

    # PyPI: one wheel per platform.
    "$python" packaging/pypi/build_wheel.py --binary "$bin" --target "$t" --version "$version" \
        --out "$out/pypi" --readme README.md --license LICENSE-MIT --license LICENSE-APACHE >/dev/null
done

# The launcher package lists every platform package, built here or not: npm
# installs only the one whose os and cpu match.
ldir="$stage/npm/mcpscope"
cp -r packaging/npm/mcpscope "$ldir"
cp LICENSE-MIT LICENSE-APACHE README.md "$ldir/"
"$python" - "$ldir/package.json" "$version" "$repo" <<'PY'
import json, sys
path, version, repo = sys.argv[1:]
platforms = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"]
pkg = {
    "name": "mcpscope",
    "version": version,
    "description": "A terminal inspector and debugger for MCP servers: progress, logs, notification order, protocol checks",
    "license": "MIT OR Apache-2.0",
    "repository": {"type": "git", "url": f"git+https://github.com/{repo}.git"},
    "keywords": ["mcp", "model-context-protocol", "inspector", "debugger", "tui"],
    "bin": {"mcpscope": "bin/mcpscope.js"},
    "files": ["bin", "LICENSE-MIT", "LICENSE-APACHE", "README.md"],
    "engines": {"node": ">=16"},
    "optionalDependencies": {f"mcpscope-{p}": version for p in platforms},
}
with open(path, "w") as f:
    json.dump(pkg, f, indent=2)
    f.write("\n")
PY
(cd "$ldir" && npm pack --silent --pack-destination "$OLDPWD/$out/npm" >/dev/null)

for f in install.sh install.ps1; do
    sed -e "s|@VERSION@|$version|g" -e "s|@REPO@|$repo|g" "packaging/$f" > "$out/$f"
done
chmod +x "$out/install.sh"

rm -rf "$stage"
(cd "$out" && find . -maxdepth 3 -type f ! -name SHA256SUMS -printf '%P\n' | LC_ALL=C sort | xargs sha256sum > ../SHA256SUMS.tmp && mv ../SHA256SUMS.tmp SHA256SUMS)
say "wrote $out:"
(cd "$out" && find . -type f -printf '  %P (%s bytes)\n' | LC_ALL=C sort) >&2
