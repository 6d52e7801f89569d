/**
 * Runs one parsed command on a session and says what it did, in lines of text. Shared by
 * plain mode and the ink app, so a script and a key press do exactly the same thing. Refs are
 * resolved against the frame the command is given in (row numbers of its pending list).
 */
import { UserInputError, unreachable } from "../sim/errors.js";
import type { Session } from "../stepper/session.js";
import type { Action, ClientOp, Frame, PendingEvent } from "../stepper/types.js";
import type { FaultAction } from "../sim/faults.js";
import type { Command } from "./commands.js";
import { COMMAND_HELP } from "./commands.js";

export interface Outcome {
  /** What happened, for the transcript (narration of new events comes from the frame). */
  lines: string[];
  /** The command asks for the whole frame to be shown. */
  showFrame: boolean;
}

export interface ExecuteOptions {
  /** Asked after each step of `step N` and `run`: true stops there (a decisive step the learner should see). */
  stop?: () => boolean;
}

export async function execute(session: Session, command: Command, o: ExecuteOptions = {}): Promise<Outcome> {
  const say = (...lines: string[]): Outcome => ({ lines, showFrame: false });
  switch (command.kind) {
    case "step": {
      let n = 0;
      let stopped = false;
      while (n < command.count && !stopped && (await session.forward())) {
        n++;
        stopped = o.stop?.() === true;
      }
      if (stopped && n < command.count) return say(`stopped at step ${session.step} (${n} of ${command.count}): see the box`);
      return say(n < command.count ? `nothing left to run after ${n} step(s)` : `step ${session.step}`);
    }
    case "back": {
      let n = 0;
      while (n < command.count && (await session.back())) n++;
      const where = session.step < 0 ? " (before the start: the run was still getting ready)" : "";
      return say(n < command.count ? `at the beginning of the run (went back ${n} step(s))` : `back at step ${session.step}${where}`);
    }
    case "run": {
      const untilUs = session.world.sim.nowUs + command.ms * 1000;
      const steps = await session.runFor(command.ms, o.stop);
      const early = session.nextEventUs() <= untilUs && o.stop?.() === true;
      return say(early ? `stopped after ${steps} step(s), at step ${session.step}: see the box` : `ran ${steps} step(s), now step ${session.step}`);
    }
    case "deliver":
    case "drop":
    case "duplicate":
    case "fire":
    case "delay": {
      const frame = session.frame();
      const target = resolveRef(frame, command.ref);
      return say(act(session, refAction(frame, command), done(command.kind, target, command.kind === "delay" ? command.delayMs : 0)));
    }
    case "fault":
      return say(act(session, { kind: "fault", fault: command.fault }, faultDone(command.fault)));
    case "client":
      return say(act(session, { kind: "client", client: command.client, ...command.op }, clientDone(command.client, command.op)));
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

/** Applies an action; says what it did (`what`), and when it opened a branch. */
function act(session: Session, action: Action, what: string): string {
  const forks = !session.atNewest;
  session.act(action);
  return forks ? `${what} — in the past: branch ${session.frame().branch} opened (the old future is kept; "branch" lists them)` : what;
}

/** "dropped m30 (PROPOSE s3→s2)", "m12 (ACK s2→s3) goes next: the next step delivers it". */
function done(verb: "deliver" | "drop" | "duplicate" | "fire" | "delay", p: PendingEvent, delayMs: number): string {
  const what = p.kind === "message" ? `${p.ref} (${p.book} ${p.from}→${p.to})` : `${p.ref} (${p.book} on ${p.node})`;
  switch (verb) {
    case "deliver":
      return `${what} goes next: the next step delivers it`;
    case "fire":
      return `${what} is due now: the next step fires it`;
    case "delay":
      return `delayed ${what} by ${delayMs} ms`;
    default:
      return `${verb === "drop" ? "dropped" : "duplicated"} ${what}`;
  }
}

function faultDone(f: FaultAction): string {
  switch (f.kind) {
    case "crash":
      return `crashed ${f.node}`;
    case "restart":
      return `restarted ${f.node}`;
    case "pause":
      return `paused ${f.node}`;
    case "resume":
      return `resumed ${f.node}`;
    case "cut":
      return `cut ${f.from.join(",")} from ${f.to.join(",")}`;
    case "partition":
      return `partitioned ${f.groups.map((g) => g.join(",")).join(" / ")}`;
    case "heal":
      return "healed every link";
    default:
      return f.kind;
  }
}

function clientDone(client: string, op: ClientOp): string {
  switch (op.op) {
    case "create":
      return `${client} creates ${op.path}${op.ephemeral === true ? " (ephemeral)" : ""}`;
    case "set":
      return `${client} sets ${op.path}`;
    case "delete":
      return `${client} deletes ${op.path}`;
    case "get":
      return `${client} reads ${op.path}`;
    case "txn":
      return `${client} starts a transaction: ${op.key}=${op.value}${op.noVoteFrom.length > 0 ? ` (${op.noVoteFrom.join(", ")} vote No)` : ""}`;
  }
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
