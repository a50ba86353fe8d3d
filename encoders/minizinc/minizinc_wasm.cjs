#!/usr/bin/env node
// A `minizinc` command line on the WebAssembly build of MiniZinc (npm package
// "minizinc", the build behind the MiniZinc Playground), for its solvers that
// Debian does not package: Chuffed above all, a lazy-clause-generation solver.
//
// Why a shim: the package's worker script (dist/minizinc-worker.js) runs the
// compiler and the solvers in memory and talks by messages, as a browser's Web
// Worker does.  This file plays the browser: it loads the worker in a Node
// worker thread, copies every argument that names a file on disk into the
// worker's in-memory file system (same path, below /minizinc), runs the command
// and writes the worker's stdout, stderr and exit status as its own.  So the
// `minizinc` Python package drives it as it drives the native `minizinc`.
//
// With --serve it stays up and runs many commands, one at a time, for the
// backend (encoders/minizinc/wasm.py): starting Node and compiling the 17 MB
// WebAssembly module cost more than a small board's whole solve.  Each request
// is a line of JSON on standard input, {"id": N, "args": [...], "files": {...}}
// ("files", optional: {name: text}, files the arguments name that are not on disk), and each reply
// a line on standard output, {"id": N, "code": C, "stdout": "...", "stderr":
// "..."}.  Each solving command runs in a fresh worker thread (a solver leaves
// state behind it).  A line
// {"cancel": N} stops run N at once: its thread is terminated ({"id": N,
// "cancelled": true} answers it).  The compiled module is shared by every worker
// thread of the process, so neither the compilation nor the optimised code
// (which V8 makes for the functions the runs use most) is lost with a thread.
// The process ends when its standard input closes.
//
// Where the package is: $SIGMAR_MINIZINC_JS (its dist folder), else
// ~/.local/share/sigmar/minizinc-js/node_modules/minizinc/dist, where
// install.sh puts it (`npm install minizinc@4.5.1`).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const threads = require("worker_threads");

const dist =
  process.env.SIGMAR_MINIZINC_JS ||
  path.join(os.homedir(), ".local", "share", "sigmar", "minizinc-js", "node_modules", "minizinc", "dist");
const workerFile = path.join(dist, "minizinc-worker.js");
const wasmFile = path.join(dist, "minizinc.wasm");
// A command that only compiles (these flags) leaves the runtime as it found it; one that solves does not
// (Chuffed keeps state between runs: a board solved after two others came back without its solution), so
// its thread is replaced after it, as the MiniZinc Playground does, and a compiling one after MAX_REUSE.
const COMPILE_ONLY = ["--model-interface-only", "--model-check-only", "--solvers-json", "--version", "--config-dirs"];
const MAX_REUSE = 10;
// When the process's memory has grown past this (a run's WebAssembly memory only grows), the worker
// thread is replaced after its run.
const MAX_RSS = 1024 * 1024 * 1024;

// Model, data and parameter files named on the command line go into the
// worker's file system, below its working folder /minizinc.
const FILE_KINDS = [".mzn", ".dzn", ".json", ".mpc", ".fzn", ".ozn"];
// A request may also carry files of its own, {name: text} (the FlatZinc that the native MiniZinc wrote):
// an argument that names one is that file, put below /minizinc under its name.
function withFiles(argv, given = {}) {
  const files = {};
  const args = argv.map((arg) => {
    if (Object.prototype.hasOwnProperty.call(given, arg) && !path.isAbsolute(arg)) {
      files[arg] = given[arg];
      return arg;
    }
    if (!FILE_KINDS.includes(path.extname(arg)) || !fs.existsSync(arg) || !fs.statSync(arg).isFile()) return arg;
    const inside = path.resolve(arg).replace(/^\/+/, "");
    files[inside] = fs.readFileSync(arg, "utf8");
    return inside;
  });
  return { jsonStream: false, files, args };
}

// ---------------------------------------------------------------- the worker thread
if (!threads.isMainThread) {
  const compiled = threads.workerData.module;
  // The worker script reads minizinc.wasm and instantiates it; the module compiled once by the
  // main thread is instantiated instead.
  const instantiate = WebAssembly.instantiate.bind(WebAssembly);
  WebAssembly.instantiate = async (_bytes, imports) => ({ module: compiled, instance: await instantiate(compiled, imports) });
  let toWorker = null;
  globalThis.addEventListener = (type, handler) => {
    if (type === "message") toWorker = handler;
  };
  globalThis.postMessage = (message) => threads.parentPort.postMessage(message);
  threads.parentPort.on("message", (data) => toWorker({ data }));
  const source = fs.readFileSync(workerFile, "utf8");
  new Function("require", "__dirname", "__filename", source)(require, dist, workerFile);
  toWorker({ data: { wasmURL: wasmFile, dataURL: path.join(dist, "minizinc.data") } });
  return;
}

// ---------------------------------------------------------------- the main thread
if (!fs.existsSync(workerFile)) {
  process.stderr.write(`minizinc_wasm: no ${workerFile} (run install.sh, or set SIGMAR_MINIZINC_JS)\n`);
  process.exit(127);
}
const compiled = new WebAssembly.Module(fs.readFileSync(wasmFile));

// One worker thread at a time (none between a solving command and the next); `run` waits until it is ready.
let worker = null;
let ready = null;
let onExit = null; // the running command's answer
function startWorker() {
  const me = new threads.Worker(__filename, { workerData: { module: compiled } });
  worker = me;
  ready = new Promise((resolve) => {
    me.on("message", (message) => {
      if (worker !== me) return; // a replaced thread's last words
      if (message.type === "ready") resolve();
      else if (message.type === "exit" && onExit) onExit(message);
      else if (message.type === "error") process.stderr.write(`minizinc_wasm: ${message.message}\n`);
    });
  });
  me.on("error", (error) => {
    if (worker === me && onExit) onExit({ type: "exit", code: 1, message: String(error) });
  });
}

async function run(argv, given) {
  if (worker === null) startWorker();
  await ready;
  return new Promise((resolve) => {
    onExit = (message) => {
      onExit = null;
      resolve(message);
    };
    worker.postMessage(withFiles(argv, given));
  });
}

function outcome(message) {
  const code = typeof message.code === "number" ? message.code : 1;
  const stderr = (message.stderr || "") + (message.message ? `minizinc_wasm: ${message.message}\n` : "");
  return { code, stdout: message.stdout || "", stderr };
}

if (process.argv[2] !== "--serve") {
  // One command, as the native `minizinc` runs it.
  startWorker();
  run(process.argv.slice(2)).then((message) => {
    const { code, stdout, stderr } = outcome(message);
    process.stderr.write(stderr, () => process.stdout.write(stdout, () => process.exit(code)));
  });
} else {
  startWorker();
  let running = null; // {id, cancel: a function that ends the run as cancelled}
  const queue = [];
  const reply = (answer) => process.stdout.write(JSON.stringify(answer) + "\n");
  let served = 0; // commands run by the current worker thread
  // The next command's thread is started when that command comes, not now: the work of starting
  // it then falls within the run that needs it, which is where the runner measures a board's CPU.
  const endWorker = async () => {
    onExit = null;
    served = 0;
    const old = worker;
    worker = null;
    await old.terminate();
  };
  const next = async () => {
    if (running || !queue.length) return;
    const { id, args, files } = queue.shift();
    const cancelled = new Promise((resolve) => (running = { id, cancel: () => resolve(null) }));
    const answer = await Promise.race([run(args, files || {}), cancelled]);
    served += 1;
    if (answer === null) {
      await endWorker();
      reply({ id, cancelled: true });
    } else {
      const reusable = args.some((arg) => COMPILE_ONLY.includes(arg)) && served < MAX_REUSE;
      if (!reusable || process.memoryUsage().rss > MAX_RSS) await endWorker();
      reply({ id, ...outcome(answer) });
    }
    running = null;
    next();
  };
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (!line.trim()) continue;
      const request = JSON.parse(line);
      if ("cancel" in request) {
        if (running && running.id === request.cancel) running.cancel();
        else {
          const at = queue.findIndex((r) => r.id === request.cancel);
          if (at >= 0) queue.splice(at, 1);
          reply({ id: request.cancel, cancelled: true });
        }
      } else {
        queue.push(request);
        next();
      }
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
