/**
 * The fuzzer's runner (scripts/fuzz.mjs starts it as a child process): it loads the built CLI once
 * and runs each input it is sent in this process, as bin/zksim.js would, so that an input costs
 * its own work and not a Node start-up. The parent bounds each input's wall-clock time and kills
 * this process when one overruns (a hang); a crash of this process (V8's abort, a signal) is a
 * finding of the input it was running.
 *
 * Messages in: {id, kind: "cli", args} runs `zksim ARGS`; {id, kind: "zooCfg", text} parses a
 * zoo.cfg text (src/serve/zoo-cfg.ts). Out: {id, status, stdout, stderr}, where status is the exit
 * code bin/zksim.js would exit with (3 for an exception, with an "internal error" line).
 */
import { format } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = (p) => pathToFileURL(fileURLToPath(new URL(`../dist/${p}`, import.meta.url))).href;
const { main } = await import(dist("cli/main.js"));
const { parseZooCfg } = await import(dist("serve/zoo-cfg.js"));
const { isUserInputError } = await import(dist("sim/errors.js"));

/** process.exit inside a command (learn's closed pipe, a second signal) ends that input, not the runner. */
class ExitCalled extends Error {
  constructor(code) {
    super(`process.exit(${code})`);
    this.code = code;
  }
}
process.exit = (code) => {
  throw new ExitCalled(code ?? 0);
};
process.on("warning", () => undefined);

/** What is sent back of each stream: its head (a one-line message is judged by its start) and, for stdout, its tail. */
const LIMIT = 4000;
const head = (s) => (s.length > LIMIT ? `${s.slice(0, LIMIT)}…` : s);
const tail = (s) => (s.length > LIMIT ? s.slice(s.length - LIMIT) : s);

async function runCli(args) {
  const out = [];
  const err = [];
  const saved = { log: console.log, info: console.info, debug: console.debug, error: console.error, warn: console.warn, trace: console.trace };
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const capture = (into) => (...a) => void into.push(`${format(...a)}\n`);
  const captureWrite = (into) =>
    function (chunk, ...rest) {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const callback = rest.find((x) => typeof x === "function");
      if (callback !== undefined) queueMicrotask(callback);
      return true;
    };
  console.log = console.info = console.debug = capture(out);
  console.error = console.warn = console.trace = capture(err);
  process.stdout.write = captureWrite(out);
  process.stderr.write = captureWrite(err);
  let status;
  try {
    status = await main(args);
  } catch (e) {
    if (e instanceof ExitCalled) status = e.code;
    else if (e?.name === "HeapLimitError") {
      err.push(`zksim: ${e.message}\n`);
      status = 3;
    } else {
      err.push(`zksim: internal error: ${e?.stack ?? String(e)}\n`);
      status = 3;
    }
  } finally {
    Object.assign(console, saved);
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    // What a command left listening (a learn session's signal handlers) must not outlive it here.
    for (const signal of ["SIGINT", "SIGTERM"]) process.removeAllListeners(signal);
    process.stdout.removeAllListeners("error");
  }
  return { status, stdout: tail(out.join("")), stderr: head(err.join("")) };
}

function zooCfg(text) {
  try {
    parseZooCfg(text, "fuzz.cfg");
    return { status: 0, stdout: "", stderr: "" };
  } catch (e) {
    if (isUserInputError(e)) return { status: 2, stdout: "", stderr: `zksim: ${e.message}\n` };
    return { status: 3, stdout: "", stderr: `zksim: internal error: ${e?.stack ?? String(e)}\n` };
  }
}

process.on("message", async (m) => {
  const r = m.kind === "zooCfg" ? zooCfg(m.text) : await runCli(m.args);
  process.send({ id: m.id, ...r });
});
process.on("uncaughtException", (e) => {
  if (e instanceof ExitCalled) return;
  process.send({ id: -1, status: 3, stdout: "", stderr: `zksim: internal error (uncaught): ${e?.stack ?? String(e)}\n` });
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 50);
});
process.send({ ready: true });
