#!/usr/bin/env python3
"""Writes the Homebrew formula (mcpscope.rb) and the Scoop manifest
(mcpscope.json) for a release from its SHA256SUMS.

usage: formulae.py DIST_DIR VERSION OWNER/REPO
"""

import json
import os
import sys


def main() -> None:
    dist, version, repo = sys.argv[1:4]
    sums = {}
    with open(os.path.join(dist, "SHA256SUMS")) as f:
        for line in f:
            digest, name = line.split(maxsplit=1)
            sums[name.strip().lstrip("*")] = digest
    base = f"https://github.com/{repo}/releases/download/v{version}"

    def entry(target: str, ext: str = "tar.gz") -> tuple[str, str]:
        name = f"mcpscope-{version}-{target}.{ext}"
        if name not in sums:
            sys.exit(f"formulae.py: {name} is not in SHA256SUMS")
        return f"{base}/{name}", sums[name]

    mac_arm, mac_x64 = entry("aarch64-apple-darwin"), entry("x86_64-apple-darwin")
    lin_arm, lin_x64 = entry("aarch64-unknown-linux-musl"), entry("x86_64-unknown-linux-musl")
    formula = f'''class Mcpscope < Formula
  desc "Terminal inspector and debugger for MCP servers"
  homepage "https://github.com/{repo}"
  version "{version}"
  license any_of: ["MIT", "Apache-2.0"]

  on_macos do
    on_arm do
      url "{mac_arm[0]}"
      sha256 "{mac_arm[1]}"
    end
    on_intel do
      url "{mac_x64[0]}"
      sha256 "{mac_x64[1]}"
    end
  end
  on_linux do
    on_arm do
      url "{lin_arm[0]}"
      sha256 "{lin_arm[1]}"
    end
    on_intel do
      url "{lin_x64[0]}"
      sha256 "{lin_x64[1]}"
    end
  end

  def install
    bin.install "mcpscope"
    man1.install Dir["man/*.1"]
    bash_completion.install "completions/mcpscope.bash" => "mcpscope"
    zsh_completion.install "completions/_mcpscope"
    fish_completion.install "completions/mcpscope.fish"
  end

  test do
    assert_match "mcpscope #{{version}}", shell_output("#{{bin}}/mcpscope --version")
  end
end
'''
    with open(os.path.join(dist, "mcpscope.rb"), "w") as f:
        f.write(formula)

    win = entry("x86_64-pc-windows-msvc", "zip")
    scoop = {
        "version": version,
        "description": "Terminal inspector and debugger for MCP servers",
        "homepage": f"https://github.com/{repo}",
        "license": "MIT OR Apache-2.0",
        "architecture": {"64bit": {"url": win[0], "hash": win[1]}},
        "extract_dir": f"mcpscope-{version}-x86_64-pc-windows-msvc",
        "bin": "mcpscope.exe",
        "checkver": {"github": f"https://github.com/{repo}"},
        "autoupdate": {
            "architecture": {
                "64bit": {
                    "url": f"https://github.com/{repo}/releases/download/v$version/mcpscope-$version-x86_64-pc-windows-msvc.zip",
                    "extract_dir": "mcpscope-$version-x86_64-pc-windows-msvc",
                }
            },
            "hash": {"url": "$baseurl/SHA256SUMS"},
        },
    }
    with open(os.path.join(dist, "mcpscope.json"), "w") as f:
        json.dump(scoop, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
