/**
 * `zksim replay FILE` for a learn session file: re-executes the saved branch to the saved step
 * and checks that it reaches the recorded trace hash; prints the frame there. Exit codes as
 * replay's: 0 reproduced and every invariant holds, 1 reproduced and an invariant is violated,
 * 4 did not reproduce (the hash differs), 2 bad file. `onTrace` reads every event of the
 * re-execution (`--trace FILE`: the caller renders it); the result says what a report needs.
 */
import { openSession } from "./cli.js";
import { frameText } from "./frame-text.js";
import { readSessionFile } from "./session-file.js";
import type { TraceListener } from "../sim/trace.js";

export interface SessionReplay {
  code: number;
  protocol: string;
  seed: number;
  traceHash: string;
  events: number;
  virtualMs: number;
  violations: { checker: string; message: string; eventIndex: number; atMs: number }[];
}

export async function replaySession(path: string, json: boolean, onTrace?: TraceListener): Promise<SessionReplay> {
  const saved = readSessionFile(path);
  const session = await openSession(saved.protocol, undefined, undefined, undefined, path, onTrace);
  const hash = session.world.sim.trace.hash();
  const reproduced = saved.traceHash === undefined || saved.traceHash === hash;
  const frame = session.frame();
  const violated = frame.verdicts.filter((v) => !v.ok).map((v) => v.checker);
  const code = !reproduced ? 4 : violated.length > 0 ? 1 : 0;
  const sim = session.world.sim;
  const violations = frame.verdicts.filter((v) => !v.ok).map((v) => ({ checker: v.checker, message: v.message ?? "", eventIndex: v.eventIndex ?? 0, atMs: sim.nowUs / 1000 }));
  const result: SessionReplay = { code, protocol: saved.protocol, seed: saved.seed, traceHash: hash, events: sim.trace.count, virtualMs: sim.nowUs / 1000, violations };
  if (json) {
    console.log(JSON.stringify({ file: path, protocol: saved.protocol, seed: saved.seed, reproduced, expected: saved.traceHash, actual: hash, violated }));
    return result;
  }
  for (const line of frameText(frame)) console.log(line);
  console.log(reproduced ? `zksim replay ${path}: reproduced (trace ${hash})${violated.length > 0 ? `; violated: ${violated.join(", ")}` : ""}` : `zksim replay ${path}: did not reproduce (expected trace ${saved.traceHash}, got ${hash})`);
  return result;
}
