/**
 * Runs one parsed command on a session and says what it did, in lines of text. Shared by
 * plain mode and the ink app, so a script and a key press do exactly the same thing. Refs are
 * resolved against the frame the command is given in (row numbers of its pending list).
 */
import { UserInputError, unreachable } from "../sim/errors.js";
import type { Session } from "../stepper/session.js";
import type { Action, Frame, PendingEvent } from "../stepper/types.js";
import type { Command } from "./commands.js";
import { COMMAND_HELP } from "./commands.js";

export interface Outcome {
  /** What happened, for the transcript (narration of new events comes from the frame). */
  lines: string[];
  /** The command asks for the whole frame to be shown. */
  showFrame: boolean;
}

export async function execute(session: Session, command: Command): Promise<Outcome> {
  const say = (...lines: string[]): Outcome => ({ lines, showFrame: false });
  switch (command.kind) {
    case "step": {
      let n = 0;
      while (n < command.count && (await session.forward())) n++;
      return say(n < command.count ? `nothing left to run after ${n} step(s)` : `step ${session.step}`);
    }
    case "back": {
      let n = 0;
      while (n < command.count && (await session.back())) n++;
      const where = session.step < 0 ? " (before the start: the run was still getting ready)" : "";
      return say(n < command.count ? `at the beginning of the run (went back ${n} step(s))` : `back at step ${session.step}${where}`);
    }
    case "run": {
      const steps = await session.runFor(command.ms);
      return say(`ran ${steps} step(s), now step ${session.step}`);
    }
    case "deliver":
    case "drop":
    case "duplicate":
    case "fire":
    case "delay":
      return say(act(session, refAction(session.frame(), command)));
    case "fault":
      return say(act(session, { kind: "fault", fault: command.fault }));
    case "client":
      return say(act(session, { kind: "client", client: command.client, ...command.op }));
    case "branch":
      if (command.index !== undefined) await session.switchBranch(command.index);
      return say(...branchLines(session));
    case "show":
      return { lines: [], showFrame: true };
    case "goal": {
      const goal = session.frame().goal;
      return say(goal === undefined ? "no lesson goal (start one with --lesson NAME)" : `${goal.reached ? "✓ goal reached" : "○ goal not reached yet"}: ${goal.text}`);
    }
    case "help":
      return say(...COMMAND_HELP);
    default:
      return unreachable(command);
  }
}

function act(session: Session, action: Action): string {
  const forks = !session.atNewest;
  session.act(action);
  return forks ? `acted in the past: branch ${session.frame().branch} opened (the old future is kept; "branch" lists them)` : "done";
}

function branchLines(session: Session): string[] {
  return session.branches.map((b, i) => {
    const here = i === session.frame().branch ? "▶" : " ";
    const from = b.parent === undefined ? "the start" : `branch ${b.parent} at step ${b.forkStep - session.startStep}`;
    return `${here} branch ${i}: ${b.marks.length - 1 - session.startStep} steps, ${b.interventions.length} action(s), from ${from}`;
  });
}

/** The action a message/timer command means in this frame. */
export function refAction(frame: Frame, command: Extract<Command, { ref: string }>): Action {
  const target = resolveRef(frame, command.ref);
  if (command.kind === "fire") {
    if (target.kind !== "timer") throw new UserInputError(`fire: ${target.ref} is a message, not a timer`);
    return { kind: "fire", timer: target.timer };
  }
  if (target.kind !== "message") throw new UserInputError(`${command.kind}: ${target.ref} is a timer (fire it instead)`);
  if (command.kind === "delay") return { kind: "delay", msg: target.msg, delayMs: command.delayMs };
  return { kind: command.kind, msg: target.msg };
}

export function resolveRef(frame: Frame, ref: string): PendingEvent {
  if (/^\d+$/.test(ref)) {
    const row = frame.pending[Number(ref) - 1];
    if (row === undefined) throw new UserInputError(`no pending row ${ref} (there are ${frame.pending.length})`);
    return row;
  }
  if (!/^[mt]\d+$/.test(ref)) throw new UserInputError(`"${ref}" is not a message or timer (write m12, t5 or a row number)`);
  const found = frame.pending.find((p) => p.ref === ref);
  if (found === undefined) throw new UserInputError(`${ref} is not pending now`);
  return found;
}
