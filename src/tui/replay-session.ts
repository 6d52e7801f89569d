/**
 * `zksim replay FILE` for a learn session file: re-executes the saved branch to the saved step
 * and checks that it reaches the recorded trace hash; prints the frame there. Exit codes as
 * replay's: 0 reproduced and every invariant holds, 1 reproduced and an invariant is violated,
 * 4 did not reproduce (the hash differs), 2 bad file.
 */
import { openSession } from "./cli.js";
import { frameText } from "./frame-text.js";
import { readSessionFile } from "./session-file.js";

export async function replaySession(path: string, json: boolean): Promise<number> {
  const saved = readSessionFile(path);
  const session = await openSession(saved.protocol, undefined, undefined, undefined, path);
  const hash = session.world.sim.trace.hash();
  const reproduced = saved.traceHash === undefined || saved.traceHash === hash;
  const frame = session.frame();
  const violated = frame.verdicts.filter((v) => !v.ok).map((v) => v.checker);
  const code = !reproduced ? 4 : violated.length > 0 ? 1 : 0;
  if (json) {
    console.log(JSON.stringify({ file: path, protocol: saved.protocol, seed: saved.seed, reproduced, expected: saved.traceHash, actual: hash, violated }));
    return code;
  }
  for (const line of frameText(frame)) console.log(line);
  console.log(reproduced ? `zksim replay ${path}: reproduced (trace ${hash})${violated.length > 0 ? `; violated: ${violated.join(", ")}` : ""}` : `zksim replay ${path}: did not reproduce (expected trace ${saved.traceHash}, got ${hash})`);
  return code;
}
