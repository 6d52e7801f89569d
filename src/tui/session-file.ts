/**
 * Session files (`zksim learn --save FILE`, the S key): reading them back strictly — every
 * mistake one line naming the field — for `zksim learn --open FILE` and `zksim replay FILE`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { UserInputError, isUserInputError } from "../sim/errors.js";
import type { FaultAction } from "../sim/faults.js";
import { anyNode, validateFaultAction } from "../sim/fault-grammar.js";
import type { Branch, CheckOrigin, Session, SessionFile } from "../stepper/session.js";
import type { Action, ClientOp } from "../stepper/types.js";
import { durationBound, isDurationMs } from "../scenario/durations.js";

const ACTION_KINDS = new Set(["deliver", "drop", "delay", "duplicate", "fire", "next", "fault", "client"]);
/** The fields of each action kind besides `kind`. */
const ACTION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  deliver: ["msg"],
  drop: ["msg"],
  duplicate: ["msg"],
  delay: ["msg", "delayMs"],
  fire: ["timer"],
  next: ["ref"],
  fault: ["fault"],
  client: ["client", "op", "path", "data", "ephemeral", "key", "value", "noVoteFrom"],
};

export function isSessionFileText(text: string): boolean {
  return /"format"\s*:\s*"zksim-learn-session"/.test(text.slice(0, 200));
}

export function readSessionFile(file: string): SessionFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new UserInputError(`cannot read session file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserInputError(`${file} is not JSON: ${(err as Error).message}`);
  }
  return checkSessionFile(data, file);
}

/** Reads a session file's data strictly: every field checked, the file built from the checked values. */
export function checkSessionFile(data: unknown, where: string): SessionFile {
  const r = reader(where);
  const d = r.object(data, "the file");
  r.only(d, ["format", "version", "protocol", "seed", "variant", "lesson", "start", "startStep", "branches", "current", "step", "traceHash", "check"], "the file");
  if (d.format !== "zksim-learn-session" || d.version !== 1) r.bad(`not a zksim learn session (format "zksim-learn-session", version 1)`);
  if (!Array.isArray(d.branches) || d.branches.length === 0) r.bad("branches must be a non-empty list");
  if (d.traceHash !== undefined && typeof d.traceHash !== "string") r.bad("traceHash must be a string");
  return {
    format: "zksim-learn-session",
    version: 1,
    protocol: r.string(d.protocol, "protocol"),
    seed: r.int(d.seed, "seed"),
    variant: r.string(d.variant, "variant"),
    ...(d.lesson !== undefined ? { lesson: r.string(d.lesson, "lesson") } : {}),
    start: r.int(d.start, "start"),
    ...(d.startStep !== undefined ? { startStep: r.int(d.startStep, "startStep") } : {}),
    branches: (d.branches as unknown[]).map((b, i) => branch(r, b, `branches[${i}]`)),
    current: r.int(d.current, "current"),
    step: r.int(d.step, "step"),
    ...(typeof d.traceHash === "string" ? { traceHash: d.traceHash } : {}),
    ...(d.check !== undefined ? { check: checkOrigin(r, d.check) } : {}),
  };
}

/** A `zksim check` counterexample's origin (what `zksim shrink` needs to replay its path). */
function checkOrigin(r: Reader, raw: unknown): CheckOrigin {
  const o = r.object(raw, "check");
  r.only(o, ["target", "from", "steps", "checker", "end"], "check");
  if (o.from !== "start" && o.from !== "setup") r.bad(`check.from must be "start" or "setup"`);
  let end: CheckOrigin["end"] = null;
  if (o.end !== null) {
    const e = r.object(o.end, "check.end");
    r.only(e, ["holdMs", "convergeMs"], "check.end");
    end = { holdMs: r.duration(e.holdMs, "check.end.holdMs"), convergeMs: r.duration(e.convergeMs, "check.end.convergeMs") };
  }
  return { target: r.string(o.target, "check.target"), from: o.from as CheckOrigin["from"], steps: r.int(o.steps, "check.steps"), checker: r.string(o.checker, "check.checker"), end };
}

/** Field readers that name the file and the field in their one-line errors. */
function reader(where: string) {
  const bad = (what: string): never => {
    throw new UserInputError(`${where}: ${what}`);
  };
  return {
    bad,
    object: (v: unknown, name: string) => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : bad(`${name} must be an object`)),
    int: (v: unknown, name: string) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : bad(`${name} must be a whole number ≥ 0`)),
    /** A duration in ms, bounded as every duration of a scenario is (scenario/durations.ts). */
    duration: (v: unknown, name: string) => (isDurationMs(v) ? v : bad(`${name} must be ${durationBound()}, got ${JSON.stringify(v) ?? String(v)}`)),
    /** Refuses fields `o` should not have (a misspelt field is an error, as in a scenario). */
    only: (o: Record<string, unknown>, keys: readonly string[], name: string) => {
      for (const k of Object.keys(o)) if (!keys.includes(k)) bad(`${name}: unknown field "${k}" (allowed: ${keys.join(", ")})`);
    },
    string: (v: unknown, name: string) => (typeof v === "string" ? v : bad(`${name} must be a string`)),
    strings: (v: unknown, name: string) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : bad(`${name} must be a list of strings`)),
  };
}
type Reader = ReturnType<typeof reader>;

function branch(r: Reader, raw: unknown, at: string): Branch {
  const br = r.object(raw, at);
  r.only(br, ["interventions", "marks", "parent", "forkStep"], at);
  if (!Array.isArray(br.marks) || br.marks.length === 0) r.bad(`${at}.marks must be a non-empty list`);
  const marks = (br.marks as unknown[]).map((m, j) => r.int(m, `${at}.marks[${j}]`));
  marks.forEach((m, j) => {
    if (j > 0 && m < marks[j - 1]!) r.bad(`${at}.marks must not decrease`);
  });
  if (!Array.isArray(br.interventions)) r.bad(`${at}.interventions must be a list`);
  const interventions = (br.interventions as unknown[]).map((iv, j) => {
    const o = r.object(iv, `${at}.interventions[${j}]`);
    r.only(o, ["atEvent", "action"], `${at}.interventions[${j}]`);
    return { atEvent: r.int(o.atEvent, `${at}.interventions[${j}].atEvent`), action: action(r, o.action, `${at}.interventions[${j}].action`) };
  });
  return { interventions, marks, parent: br.parent === undefined ? undefined : r.int(br.parent, `${at}.parent`), forkStep: r.int(br.forkStep, `${at}.forkStep`) };
}

function action(r: Reader, raw: unknown, at: string): Action {
  const a = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (typeof a.kind === "string" && Object.hasOwn(ACTION_FIELDS, a.kind)) r.only(a, ["kind", ...ACTION_FIELDS[a.kind]!], at);
  switch (a.kind) {
    case "deliver":
    case "drop":
    case "duplicate":
      return { kind: a.kind, msg: r.int(a.msg, `${at}.msg`) };
    case "delay":
      return { kind: "delay", msg: r.int(a.msg, `${at}.msg`), delayMs: r.duration(a.delayMs, `${at}.delayMs`) };
    case "fire":
      return { kind: "fire", timer: r.int(a.timer, `${at}.timer`) };
    case "next":
      return { kind: "next", ref: r.string(a.ref, `${at}.ref`) };
    case "fault":
      return { kind: "fault", fault: faultAction(r, a.fault, `${at}.fault`) };
    case "client":
      return { kind: "client", client: r.string(a.client, `${at}.client`), ...clientOp(r, a, at) };
    default:
      return r.bad(`${at}.kind must be one of ${[...ACTION_KINDS].join(", ")}`);
  }
}

function faultAction(r: Reader, raw: unknown, at: string): FaultAction {
  const fault = r.object(raw, at);
  try {
    return validateFaultAction(fault, anyNode, at);
  } catch (err) {
    if (isUserInputError(err)) return r.bad(err.message);
    throw err;
  }
}

function clientOp(r: Reader, a: Record<string, unknown>, at: string): ClientOp {
  const path = () => r.string(a.path, `${at}.path`);
  const data = () => r.string(a.data, `${at}.data`);
  switch (a.op) {
    case "create":
      return { op: "create", path: path(), data: data(), ...(a.ephemeral === true ? { ephemeral: true } : {}) };
    case "set":
      return { op: "set", path: path(), data: data() };
    case "delete":
    case "get":
      return { op: a.op, path: path() };
    case "txn":
      return { op: "txn", key: r.string(a.key, `${at}.key`), value: r.string(a.value, `${at}.value`), noVoteFrom: r.strings(a.noVoteFrom, `${at}.noVoteFrom`) };
    default:
      return r.bad(`${at}.op must be one of create, set, delete, get, txn`);
  }
}

export function saveSession(session: Session, file: string): void {
  try {
    writeFileSync(file, `${JSON.stringify(session.save(), null, 1)}\n`);
  } catch (err) {
    throw new UserInputError(`cannot write session file ${file}: ${(err as Error).message}`);
  }
}
