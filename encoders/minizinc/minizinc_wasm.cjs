#!/usr/bin/env node
// A `minizinc` command line on the WebAssembly build of MiniZinc (npm package
// "minizinc", the build behind the MiniZinc Playground), for its solvers that
// Debian does not package: Chuffed above all, a lazy-clause-generation solver.
//
// Why a shim: the package's worker script (dist/minizinc-worker.js) runs the
// compiler and the solvers in memory and talks by messages, as a browser's Web
// Worker does.  This file plays the browser: it loads the worker in Node,
// copies every argument that names a file on disk into the worker's in-memory
// file system (same path, below /minizinc), runs the command and writes the
// worker's stdout, stderr and exit status as its own.  So the `minizinc`
// Python package drives it as it drives the native `minizinc`.
//
// Where the package is: $SIGMAR_MINIZINC_JS (its dist folder), else
// ~/.local/share/sigmar/minizinc-js/node_modules/minizinc/dist, where
// install.sh puts it (`npm install minizinc@4.5.1`).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

const dist =
  process.env.SIGMAR_MINIZINC_JS ||
  path.join(os.homedir(), ".local", "share", "sigmar", "minizinc-js", "node_modules", "minizinc", "dist");
const workerFile = path.join(dist, "minizinc-worker.js");
if (!fs.existsSync(workerFile)) {
  process.stderr.write(`minizinc_wasm: no ${workerFile} (run install.sh, or set SIGMAR_MINIZINC_JS)\n`);
  process.exit(127);
}

// The worker's half of the message channel.
let toWorker = null;
globalThis.addEventListener = (type, handler) => {
  if (type === "message") toWorker = handler;
};
// The worker says "ready" after every message it handles: run once only.
let started = false;
globalThis.postMessage = (message) => {
  if (message.type === "ready") {
    if (!started) run();
    started = true;
  } else if (message.type === "exit") {
    // The runtime stays alive after main returns (it is built to serve many
    // runs); write everything out, then end the process with the run's status.
    const code = typeof message.code === "number" ? message.code : 1;
    const err = (message.stderr || "") + (message.message ? `minizinc_wasm: ${message.message}\n` : "");
    process.stderr.write(err, () => process.stdout.write(message.stdout || "", () => process.exit(code)));
  } else if (message.type === "error") process.stderr.write(`minizinc_wasm: ${message.message}\n`);
};

// Model, data and parameter files named on the command line go into the
// worker's file system, below its working folder /minizinc.
const FILE_KINDS = [".mzn", ".dzn", ".json", ".mpc", ".fzn", ".ozn"];
function run() {
  const files = {};
  const args = process.argv.slice(2).map((arg) => {
    if (!FILE_KINDS.includes(path.extname(arg)) || !fs.existsSync(arg) || !fs.statSync(arg).isFile()) return arg;
    const inside = path.resolve(arg).replace(/^\/+/, "");
    files[inside] = fs.readFileSync(arg, "utf8");
    return inside;
  });
  toWorker({ data: { jsonStream: false, files, args } });
}

// The worker script is an ES-module-flavoured file that expects `require`
// and `__dirname` as a CommonJS module has them; load it as one.
const source = fs.readFileSync(workerFile, "utf8");
new Function("require", "__dirname", "__filename", source)(require, dist, workerFile);
toWorker({ data: { wasmURL: path.join(dist, "minizinc.wasm"), dataURL: path.join(dist, "minizinc.data") } });
