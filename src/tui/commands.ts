/**
 * The learner's command language, shared by plain mode (`--script "step 12; crash s3"`, stdin)
 * and the ink app's command line (`:`). Parsing is strict: a bad command is one UserInputError
 * line that names what is wrong and what would be right.
 *
 * Messages and timers are named by their stable refs (m12, t5) or by their row in the pending
 * list (1, 2, …) of the frame the command is given in.
 *
 * Faults are the fault grammar of `zksim ctl` and scenario files (sim/fault-grammar.ts), applied
 * now. Two of its words are also message commands here: `delay REF MS` and `dup`/`duplicate REF`
 * act on one message when their first word is a REF (m12, t5 or a row number); otherwise they
 * are the link faults (`delay 5ms 20ms [A -> B]`, `duplicate 0.5 [A -> B]`).
 */
import { UserInputError } from "../sim/errors.js";
import type { FaultAction } from "../sim/faults.js";
import { anyNode, isFaultKind, parseDurationMs, parseFaultText } from "../sim/fault-grammar.js";
import type { ClientOp } from "../stepper/types.js";

export type Command =
  | { kind: "step"; count: number }
  | { kind: "back"; count: number }
  | { kind: "run"; ms: number }
  | { kind: "deliver" | "drop" | "duplicate" | "fire"; ref: string }
  | { kind: "delay"; ref: string; delayMs: number }
  | { kind: "fault"; fault: FaultAction }
  | { kind: "client"; client: string; op: ClientOp }
  | { kind: "branch"; index: number | undefined }
  | { kind: "show" }
  | { kind: "goal" }
  | { kind: "help" };

export const COMMAND_HELP: readonly string[] = [
  "step [N]            run the next N events (default 1)          s",
  "back [N]            go N events back (re-executes from the seed) b",
  "run DURATION        run on for a virtual time: 500ms, 2s",
  "deliver REF         deliver this message next (a TCP connection's head only)",
  "drop REF | dup REF  lose / duplicate a datagram (not on TCP connections)",
  "delay REF MS        deliver this message MS later",
  "fire REF            fire this timer now",
  "crash|restart|start|pause|resume NODE",
  "cut A <-> B         cut the links between A and B, both ways (A -> B: one way; A, B: s1 or s1,s2)",
  "partition A B | C   split into groups (unlisted nodes: one more);  heal [A <-> B]: all links, or some",
  "clog, loss, clock, disk …  every fault of zksim ctl and scenario files (docs/faults.md)",
  "write C PATH DATA   client C creates PATH (ephemeral C PATH DATA: ephemeral)",
  "set C PATH DATA | read C PATH | delete C PATH",
  "txn C KEY VALUE [no P,..]  2PC/3PC: client C's transaction (P vote No)",
  "branch [N]          list the branches, or switch to branch N",
  "show | goal | help  the whole frame / the lesson's goal / this list",
  "REF: m12 (a message), t5 (a timer), or a row number of the pending list",
];

/** Splits a script on ";" and newlines into command strings (blank ones and # comments dropped). */
export function splitScript(script: string): string[] {
  return script
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("#"));
}

export function parseCommand(text: string): Command {
  const words = text.trim().split(/\s+/);
  const [verb = "", ...args] = words;
  const need = (n: number, usage: string) => {
    if (args.length !== n) throw new UserInputError(`"${text}": expected ${usage}`);
  };
  switch (verb) {
    case "step":
    case "s":
      return { kind: "step", count: optionalCount(args, text) };
    case "back":
    case "b":
      return { kind: "back", count: optionalCount(args, text) };
    case "run":
      need(1, "run DURATION (e.g. run 2s, run 500ms)");
      return { kind: "run", ms: boundedDurationMs(args[0]!, "run") };
    case "deliver":
    case "drop":
    case "fire":
      need(1, `${verb} REF (m12, t5 or a pending row number)`);
      return { kind: verb, ref: args[0]! };
    case "dup":
      need(1, "dup REF");
      return { kind: "duplicate", ref: args[0]! };
    case "duplicate":
      if (!isRef(args[0])) return { kind: "fault", fault: faultNow(text) };
      need(1, "duplicate REF");
      return { kind: "duplicate", ref: args[0]! };
    case "delay":
      if (!isRef(args[0])) return { kind: "fault", fault: faultNow(text) };
      need(2, "delay REF MS");
      return { kind: "delay", ref: args[0]!, delayMs: boundedDurationMs(args[1]!.replace(/^(\d+)$/, "$1ms"), "delay") };
    default:
      return isFaultKind(verb) ? { kind: "fault", fault: faultNow(text) } : parseOther(verb, args, text);
  }
}

/** A message or timer named as the pending list names it: m12, t5, or a row number. */
function isRef(word: string | undefined): boolean {
  return word !== undefined && /^([mt]\d+|\d+)$/.test(word);
}

/** A fault line of the fault grammar, applied now (no `for`: the learner undoes it with heal, resume …). */
function faultNow(text: string): FaultAction {
  const { action, forMs } = parseFaultText(text, anyNode);
  if (forMs !== undefined) throw new UserInputError(`"${text}": learn applies a fault now; leave out "for" and undo it yourself (heal, resume, start …)`);
  return action;
}

function parseOther(verb: string, args: string[], text: string): Command {
  const need = (n: number, usage: string) => {
    if (args.length < n) throw new UserInputError(`"${text}": expected ${usage}`);
  };
  switch (verb) {
    case "write":
    case "ephemeral":
      need(3, `${verb} CLIENT PATH DATA`);
      return { kind: "client", client: args[0]!, op: { op: "create", path: args[1]!, data: args.slice(2).join(" "), ...(verb === "ephemeral" ? { ephemeral: true } : {}) } };
    case "set":
      need(3, "set CLIENT PATH DATA");
      return { kind: "client", client: args[0]!, op: { op: "set", path: args[1]!, data: args.slice(2).join(" ") } };
    case "read":
    case "delete":
      if (args.length !== 2) throw new UserInputError(`"${text}": expected ${verb} CLIENT PATH`);
      return { kind: "client", client: args[0]!, op: verb === "read" ? { op: "get", path: args[1]! } : { op: "delete", path: args[1]! } };
    case "txn":
      return parseTxn(args, text);
    case "branch":
      if (args.length > 1) throw new UserInputError(`"${text}": expected branch [N]`);
      return { kind: "branch", index: args.length === 0 ? undefined : wholeNumber(args[0]!, text) };
    case "show":
    case "goal":
    case "help":
      if (args.length > 0) throw new UserInputError(`"${text}": ${verb} takes no arguments`);
      return { kind: verb };
    default:
      throw new UserInputError(`unknown command "${verb}" (commands: step, back, run, deliver, drop, dup, delay, fire, write, ephemeral, set, read, delete, txn, branch, show, goal, help, and the faults crash, restart, start, pause, resume, partition, cut, heal, clog, unclog, loss, duplicate, reorder, delay, clock, disk)`);
  }
}

/** "txn c1 x 1" or "txn c1 x 1 no p2,p3": a transaction; the listed participants vote No. */
function parseTxn(args: string[], text: string): Command {
  const usage = `"${text}": expected txn CLIENT KEY VALUE [no P1,P2]`;
  if (args.length !== 3 && !(args.length === 5 && args[3] === "no")) throw new UserInputError(usage);
  const noVoteFrom = args.length === 5 ? nodeList(args[4]!) : [];
  if (args.length === 5 && noVoteFrom.length === 0) throw new UserInputError(usage);
  return { kind: "client", client: args[0]!, op: { op: "txn", key: args[1]!, value: args[2]!, noVoteFrom } };
}

function nodeList(s: string): string[] {
  return s.split(",").filter((n) => n !== "");
}

function optionalCount(args: string[], text: string): number {
  if (args.length === 0) return 1;
  if (args.length > 1) throw new UserInputError(`"${text}": expected at most one number`);
  const n = wholeNumber(args[0]!, text);
  if (n === 0) throw new UserInputError(`"${text}": the count must be at least 1`);
  return n;
}

function wholeNumber(s: string, text: string): number {
  if (!/^\d{1,9}$/.test(s)) throw new UserInputError(`"${text}": "${s}" is not a whole number`);
  return Number(s);
}

/** "500ms", "2s", "1.5s" → milliseconds (the fault grammar's durations), more than 0 and at most an hour. */
function boundedDurationMs(s: string, what: string): number {
  const ms = parseDurationMs(s, what);
  if (!(ms > 0) || ms > 3_600_000) throw new UserInputError(`duration ${s} must be more than 0 and at most an hour`);
  return ms;
}
