/**
 * Session files (`zksim learn --save FILE`, the S key): reading them back strictly — every
 * mistake one line naming the field — for `zksim learn --open FILE` and `zksim replay FILE`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { UserInputError } from "../sim/errors.js";
import type { Session, SessionFile } from "../stepper/session.js";

const ACTION_KINDS = new Set(["deliver", "drop", "delay", "duplicate", "fire", "fault", "client"]);

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

export function checkSessionFile(data: unknown, where: string): SessionFile {
  const bad = (what: string): never => {
    throw new UserInputError(`${where}: ${what}`);
  };
  const d = (typeof data === "object" && data !== null ? data : bad("expected a JSON object")) as Record<string, unknown>;
  if (d.format !== "zksim-learn-session" || d.version !== 1) bad(`not a zksim learn session (format "zksim-learn-session", version 1)`);
  const int = (v: unknown, name: string) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : bad(`${name} must be a whole number ≥ 0`));
  if (typeof d.protocol !== "string") bad("protocol must be a string");
  if (typeof d.variant !== "string") bad("variant must be a string");
  int(d.seed, "seed");
  int(d.start, "start");
  int(d.current, "current");
  int(d.step, "step");
  if (d.startStep !== undefined) int(d.startStep, "startStep");
  if (!Array.isArray(d.branches) || d.branches.length === 0) bad("branches must be a non-empty list");
  (d.branches as unknown[]).forEach((b, i) => {
    const br = (typeof b === "object" && b !== null ? b : bad(`branches[${i}] must be an object`)) as Record<string, unknown>;
    if (!Array.isArray(br.marks) || br.marks.length === 0) bad(`branches[${i}].marks must be a non-empty list`);
    (br.marks as unknown[]).forEach((m, j) => {
      int(m, `branches[${i}].marks[${j}]`);
      if (j > 0 && (m as number) < ((br.marks as number[])[j - 1] ?? 0)) bad(`branches[${i}].marks must not decrease`);
    });
    if (!Array.isArray(br.interventions)) bad(`branches[${i}].interventions must be a list`);
    (br.interventions as unknown[]).forEach((iv, j) => {
      const at = `branches[${i}].interventions[${j}]`;
      const o = (typeof iv === "object" && iv !== null ? iv : bad(`${at} must be an object`)) as Record<string, unknown>;
      int(o.atEvent, `${at}.atEvent`);
      const action = o.action as Record<string, unknown> | null | undefined;
      if (typeof action !== "object" || action === null || !ACTION_KINDS.has(String(action.kind))) bad(`${at}.action.kind must be one of ${[...ACTION_KINDS].join(", ")}`);
    });
    if (br.parent !== undefined) int(br.parent, `branches[${i}].parent`);
    int(br.forkStep, `branches[${i}].forkStep`);
  });
  if (d.traceHash !== undefined && typeof d.traceHash !== "string") bad("traceHash must be a string");
  return d as unknown as SessionFile;
}

export function saveSession(session: Session, file: string): void {
  try {
    writeFileSync(file, `${JSON.stringify(session.save(), null, 1)}\n`);
  } catch (err) {
    throw new UserInputError(`cannot write session file ${file}: ${(err as Error).message}`);
  }
}
