/**
 * `zksim learn compare 2pc 3pc [--seed N] [--plain] [--script "…"]`: opens the two runs (both
 * start with c1's transaction x=1) and hands them to the ink compare screen on a terminal, or
 * to plain mode: commands from --script or stdin, both runs' narration after each, the two
 * panes at the end. A bad command prints one `error:` line (and tells `fail`: the CLI's stderr)
 * and exits 2.
 */
import { isUserInputError, UserInputError } from "../../sim/errors.js";
import { Session } from "../../stepper/session.js";
import { adapterFor } from "../../stepper/adapters.js";
import type { Action } from "../../stepper/types.js";
import { parseCommand } from "../commands.js";
import { CompareSession } from "./compare-session.js";
import { compareFrameText, executeCompare } from "./compare-text.js";
import { wrapAll } from "../text.js";

/** The pairs `learn compare` knows: runs with the same nodes, so the same faults mean the same. */
const COMPARABLE = [["2pc", "3pc"]];

export const COMPARE_START: readonly Action[] = [{ kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: [] }];

export const COMPARE_INTRO: readonly string[] = [
  "COMPARE: the same transaction (c1: x=1 at p1, p2, p3), the same faults, two protocols.",
  "  • Crash the coordinator as the votes come in (step 8; crash co; run 4s): 2PC blocks, 3PC aborts.",
  "  • Cut p1 off once it has 3PC's preCommit (step 16; cut p1 <-> co,p2,p3,c1; run 2s): 3PC splits.",
  "",
];

export async function openCompare(protocols: readonly string[], seed: number | undefined): Promise<CompareSession> {
  const [a, b] = protocols;
  if (protocols.length !== 2 || !COMPARABLE.some(([x, y]) => (a === x && b === y) || (a === y && b === x))) {
    throw new UserInputError(`learn compare: expected two protocols to compare (known pairs: ${COMPARABLE.map((p) => p.join(" ")).join("; ")}), got "${protocols.join(" ")}"`);
  }
  const begin = (p: string) => Session.begin(adapterFor(p), { seed: seed ?? 1, setup: COMPARE_START });
  return new CompareSession(await begin(a!), await begin(b!));
}

export async function runComparePlain(c: CompareSession, commands: AsyncIterable<string> | Iterable<string>, write: (line: string) => void, width = 100, fail?: (message: string) => void): Promise<number> {
  for (const line of wrapAll(COMPARE_INTRO, width)) write(line);
  for (const line of compareFrameText(c, width)) write(line);
  for await (const raw of commands) {
    const text = raw.trim();
    if (text === "" || text.startsWith("#")) continue;
    write(`> ${text}`);
    try {
      for (const line of await executeCompare(c, parseCommand(text), width)) write(line);
    } catch (err) {
      if (!isUserInputError(err)) throw err;
      write(`error: ${err.message}`);
      fail?.(`"${text}": ${err.message}`);
      return 2;
    }
  }
  write("--- end ---");
  for (const line of compareFrameText(c, width)) write(line);
  return 0;
}
