/**
 * The fault vocabulary of scenario files, typed as one-line commands (stdin, the control
 * socket, `zksim ctl`):
 *
 *   crash s2 | restart s2 | start s2 | resume s2
 *   pause s2 [4s]                      a pause that resumes by itself after the duration
 *   partition s1 | s2 s3               groups split by "|"; unlisted nodes form one more group
 *   cut s1 -> s3   /   cut s1 <-> s3   one-way / both ways
 *   heal [s1 -> s3]                    every link, or some
 *   clog s1 -> s2 200ms  /  unclog [s1 -> s2]
 *   loss 0.1 [s1 -> s2] | duplicate 0.1 [...] | reorder 0.1 [...] | delay 5ms 20ms [...]
 *   clock s2 1.5 | disk s2 slow-fsync 200ms | disk s2 full | disk s2 ok
 *
 * Each line becomes the JSON entry a scenario file would hold and is validated by the same
 * parser (`parseFaultSchedule`), so both accept and reject the same faults. Serve's one rule of
 * its own: the real clients of `sN` sit on gateway node `cN`, and a partition keeps each `cN`
 * with its `sN` unless the line names `cN` itself — otherwise every partition would also cut
 * every real client off.
 */
import { UserInputError, unreachable } from "../sim/errors.js";
import { parseFaultSchedule, type FaultAction } from "../sim/faults.js";

export interface FaultCommand {
  action: FaultAction;
  /** `pause s2 4s`: resume after this many ms. */
  resumeAfterMs?: number;
}

/** "4s", "200ms", "1.5s" → ms. */
export function parseDurationMs(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (m === null) throw new UserInputError(`${what}: expected a duration like 200ms or 4s, got "${text}"`);
  return m[2] === "s" ? Number(m[1]) * 1000 : Number(m[1]);
}

function rate(text: string | undefined, what: string): number {
  const n = Number(text);
  if (text === undefined || !Number.isFinite(n)) throw new UserInputError(`${what}: expected a number, got "${text ?? ""}"`);
  return n;
}

/** "s1 s2 -> s3" → {from, to, oneWay}; undefined when there are no words. */
function links(words: string[], cmd: string): Record<string, unknown> {
  if (words.length === 0) return {};
  const arrow = words.findIndex((w) => w === "->" || w === "<->");
  if (arrow <= 0 || arrow === words.length - 1) throw new UserInputError(`${cmd}: expected "A B -> C" (one way) or "A <-> C" (both ways), got "${words.join(" ")}"`);
  return { from: words.slice(0, arrow), to: words.slice(arrow + 1), oneWay: words[arrow] === "->" };
}

/** Parses one command line against the known node ids. */
export function parseFaultCommand(line: string, nodes: readonly string[]): FaultCommand {
  const words = line.trim().split(/\s+/).filter((w) => w !== "");
  const [cmd, ...rest] = words;
  if (cmd === undefined) throw new UserInputError("empty command");
  let raw: Record<string, unknown>;
  let resumeAfterMs: number | undefined;
  switch (cmd) {
    case "crash":
    case "restart":
    case "start":
    case "resume":
      raw = { kind: cmd, node: rest[0] };
      break;
    case "pause":
      raw = { kind: cmd, node: rest[0] };
      if (rest[1] !== undefined) resumeAfterMs = parseDurationMs(rest[1], "pause");
      break;
    case "partition":
      raw = { kind: cmd, groups: rest.join(" ").split("|").map((g) => g.trim().split(/\s+/).filter((w) => w !== "")) };
      break;
    case "cut":
      raw = { kind: cmd, ...links(rest, cmd) };
      break;
    case "heal":
    case "unclog":
      raw = { kind: cmd, ...links(rest, cmd) };
      break;
    case "clog": {
      const delay = rest.pop();
      raw = { kind: cmd, ...links(rest, cmd), extraDelayMs: delay === undefined ? undefined : parseDurationMs(delay, "clog") };
      break;
    }
    case "loss":
    case "duplicate":
    case "reorder":
      raw = { kind: cmd, rate: rate(rest[0], cmd), ...links(rest.slice(1), cmd) };
      break;
    case "delay":
      raw = { kind: cmd, minMs: parseDurationMs(rest[0] ?? "", "delay min"), maxMs: parseDurationMs(rest[1] ?? "", "delay max"), ...links(rest.slice(2), cmd) };
      break;
    case "clock":
      raw = { kind: cmd, node: rest[0], rate: rate(rest[1], cmd) };
      break;
    case "disk":
      raw = rest[1] === "slow-fsync" ? { kind: cmd, node: rest[0], fault: rest[1], fsyncLatencyMs: parseDurationMs(rest[2] ?? "", "slow-fsync") } : { kind: cmd, node: rest[0], fault: rest[1] };
      break;
    default:
      throw new UserInputError(`unknown command "${cmd}" (faults: crash, restart, start, pause, resume, partition, cut, heal, clog, unclog, loss, duplicate, reorder, delay, clock, disk)`);
  }
  const [fault] = parseFaultSchedule([{ atMs: 0, ...raw }], nodes, cmd);
  const { atMs: _atMs, ...action } = fault!;
  const out: FaultCommand = { action: action as FaultAction };
  if (resumeAfterMs !== undefined) out.resumeAfterMs = resumeAfterMs;
  return out;
}

/** A partition keeps each gateway node `cN` with its `sN` unless the groups name `cN` already. */
export function withGatewaysInPartition(action: FaultAction, gatewayOf: ReadonlyMap<string, string>): FaultAction {
  if (action.kind !== "partition") return action;
  const listed = new Set(action.groups.flat());
  const groups = action.groups.map((g) => [...g, ...g.flatMap((n) => {
    const gw = gatewayOf.get(n);
    return gw !== undefined && !listed.has(gw) ? [gw] : [];
  })]);
  return { kind: "partition", groups };
}

/** A fault as the command line that would apply it (`cut s1 -> s3`), for status lines. */
export function describeFault(action: FaultAction): string {
  const links = (f: { from?: string[]; to?: string[]; oneWay?: boolean }) => (f.from === undefined ? "" : ` ${f.from.join(" ")} ${f.oneWay === true ? "->" : "<->"} ${f.to!.join(" ")}`);
  switch (action.kind) {
    case "crash":
    case "restart":
    case "start":
    case "pause":
    case "resume":
      return `${action.kind} ${action.node}`;
    case "partition":
      return `partition ${action.groups.map((g) => g.join(" ")).join(" | ")}`;
    case "cut":
    case "heal":
    case "unclog":
      return `${action.kind}${links(action)}`;
    case "clog":
      return `clog${links(action)} ${action.extraDelayMs}ms`;
    case "loss":
    case "duplicate":
    case "reorder":
      return `${action.kind} ${action.rate}${links(action)}`;
    case "delay":
      return `delay ${action.minMs}ms ${action.maxMs}ms${links(action)}`;
    case "clock":
      return `clock ${action.node} ${action.rate}`;
    case "disk":
      return action.fault === "slow-fsync" ? `disk ${action.node} slow-fsync ${action.fsyncLatencyMs}ms` : `disk ${action.node} ${action.fault}`;
    default:
      return unreachable(action);
  }
}
