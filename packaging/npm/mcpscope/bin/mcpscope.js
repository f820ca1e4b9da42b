#!/usr/bin/env node
// The `mcpscope` command of the npm package: runs the native binary that the
// platform's package (an optionalDependency, installed by npm only on the
// platform it is for) carries, with the terminal, signals and exit code
// passed through. Nothing is downloaded at install time.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const PLATFORMS = {
  "linux x64": "mcpscope-linux-x64",
  "linux arm64": "mcpscope-linux-arm64",
  "darwin x64": "mcpscope-darwin-x64",
  "darwin arm64": "mcpscope-darwin-arm64",
  "win32 x64": "mcpscope-win32-x64",
};

function binaryPath() {
  // An explicit binary wins: a local build, or a platform npm does not cover.
  if (process.env.MCPSCOPE_BINARY) return process.env.MCPSCOPE_BINARY;
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    fail(
      `mcpscope has no prebuilt binary for ${key}. ` +
        "Build it from source (cargo install mcpscope) and set MCPSCOPE_BINARY to its path.",
    );
  }
  const exe = process.platform === "win32" ? "mcpscope.exe" : "mcpscope";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `the package ${pkg}, which carries mcpscope's binary for ${key}, is not installed. ` +
        "It is an optional dependency: reinstall without --no-optional / --omit=optional.",
    );
  }
}

function fail(message) {
  process.stderr.write(`[error] ${message}\n`);
  process.exit(2);
}

const child = spawn(binaryPath(), process.argv.slice(2), {
  stdio: "inherit",
  windowsHide: false,
});

// A signal sent to this launcher (a CI timeout's SIGTERM, `kill`) reaches the
// binary, which stops its server and restores the terminal. Ctrl-C in a
// terminal reaches both processes already; mcpscope ends on the first
// SIGINT, so a second one changes nothing.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of forwarded) {
  process.on(sig, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  });
}

child.on("error", (err) => fail(`cannot run ${path.basename(binaryPath())}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // End the way the binary ended, so a parent sees the same signal.
    for (const sig of forwarded) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
