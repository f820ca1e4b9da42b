#!/usr/bin/env python3
"""Writes a platform wheel that carries mcpscope's binary as a script.

`pip install`, `pipx run` and `uvx` put the binary on PATH as `mcpscope`;
there is no Python code in the wheel. The distribution is named
`mcpscope-bin` because `mcpscope` is taken on PyPI.

A wheel is a zip with three metadata files (PEP 427, PEP 491); the binary is
already built by `packaging/dist.sh`, so this writes those files around it
instead of building the crate a second time through a build backend.

usage: build_wheel.py --binary PATH --target TRIPLE --version V --out DIR
                      [--readme FILE] [--license FILE ...]
"""

import argparse
import base64
import hashlib
import os
import sys
import zipfile

NAME = "mcpscope-bin"
DIST = NAME.replace("-", "_")

# Rust target → wheel platform tags. The Linux binaries are static (musl), so
# one wheel serves glibc (manylinux) and musl (musllinux) systems alike.
PLATFORM_TAGS = {
    "x86_64-unknown-linux-musl": "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    "aarch64-unknown-linux-musl": "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    "x86_64-apple-darwin": "macosx_10_12_x86_64",
    "aarch64-apple-darwin": "macosx_11_0_arm64",
    "x86_64-pc-windows-msvc": "win_amd64",
    "x86_64-pc-windows-gnu": "win_amd64",
}


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata(version: str, readme: str) -> str:
    head = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        "Summary: A terminal inspector and debugger for MCP servers: progress, logs, notification order, protocol checks",
        "License: MIT OR Apache-2.0",
        "Requires-Python: >=3.8",
        "Classifier: Environment :: Console",
        "Classifier: Programming Language :: Rust",
        "Classifier: Topic :: Software Development :: Debuggers",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(head) + "\n\n" + readme


def build(binary: str, target: str, version: str, out: str, readme: str, licenses: list[str]) -> str:
    tag = PLATFORM_TAGS.get(target)
    if tag is None:
        sys.exit(f"build_wheel.py: no wheel platform tag for target {target}")
    exe = "mcpscope.exe" if "windows" in target else "mcpscope"
    info = f"{DIST}-{version}.dist-info"
    name = f"{DIST}-{version}-py3-none-{tag}.whl"
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)

    with open(binary, "rb") as f:
        binary_bytes = f.read()
    files = [(f"{DIST}-{version}.data/scripts/{exe}", binary_bytes, 0o755)]
    for lic in licenses:
        with open(lic, "rb") as f:
            files.append((f"{info}/licenses/{os.path.basename(lic)}", f.read(), 0o644))
    files.append((f"{info}/METADATA", metadata(version, readme).encode(), 0o644))
    # A compressed tag set names several platforms; WHEEL lists each one.
    tags = "".join(f"Tag: py3-none-{t}\n" for t in tag.split("."))
    wheel = f"Wheel-Version: 1.0\nGenerator: mcpscope build_wheel.py\nRoot-Is-Purelib: false\n{tags}"
    files.append((f"{info}/WHEEL", wheel.encode(), 0o644))

    record_name = f"{info}/RECORD"
    record = "".join(f"{n},{digest(d)},{len(d)}\n" for n, d, _ in files) + f"{record_name},,\n"
    files.append((record_name, record.encode(), 0o644))

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, data, mode in files:
            zi = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return path


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--readme")
    p.add_argument("--license", action="append", default=[])
    a = p.parse_args()
    readme = open(a.readme, encoding="utf-8").read() if a.readme else ""
    print(build(a.binary, a.target, a.version, a.out, readme, a.license))


if __name__ == "__main__":
    main()
