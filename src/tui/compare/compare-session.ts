/**
 * `zksim learn compare 2pc 3pc`: two sessions on the same seed, stepping together under the
 * same faults, so the learner sees where 2PC blocks and 3PC finishes, and where a partition
 * splits 3PC. Both runs have the same nodes (co, p1–p3, c1, c2), so a fault or a client
 * transaction applies to both at the same moment.
 *
 * Stepping together is by virtual time: a step runs, in each run, every event up to the
 * earlier of the two runs' next event times, so both stand at the same time after each step.
 * Going back returns both to the previous joint step (each re-executes from the seed). A fault
 * given in the past opens a branch in each run, as in a single session.
 *
 * Messages are not shared between the runs (2PC's Commit is not 3PC's preCommit), so deliver,
 * drop, duplicate, delay and fire are refused here: steer both runs with faults.
 *
 * Both worlds have the same nodes and see the same faults, so an action one run accepts the
 * other accepts too.
 *
 * Invariant: `joint[i]` is the pair of session steps of joint step i, both increasing in i.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Session } from "../../stepper/session.js";
import type { Action, Frame } from "../../stepper/types.js";

/** A joint step stops after this many single steps of one run at one time (a busy instant). */
const MAX_STEPS_PER_JOINT_STEP = 10_000;

export class CompareSession {
  private joint: [number, number][];
  private cursor = 0;
  /** Each run's trace length when the last joint step or action began (its narration starts there). */
  since: [number, number] = [0, 0];

  constructor(readonly left: Session, readonly right: Session) {
    this.joint = [[left.step, right.step]];
  }

  get sessions(): [Session, Session] {
    return [this.left, this.right];
  }

  get step(): number {
    return this.cursor;
  }

  /** One joint step: both runs up to the earlier next event time. False when neither has anything left. */
  async forward(): Promise<boolean> {
    this.mark();
    if (this.cursor < this.joint.length - 1) {
      const [a, b] = this.joint[++this.cursor]!;
      await Promise.all([this.left.goto(a), this.right.goto(b)]);
      return true;
    }
    const t = Math.min(this.left.nextEventUs(), this.right.nextEventUs());
    if (t === Infinity) return false;
    for (const s of this.sessions) {
      for (let n = 0; n < MAX_STEPS_PER_JOINT_STEP && s.nextEventUs() <= t; n++) if (!(await s.forward())) break;
    }
    this.joint.push([this.left.step, this.right.step]);
    this.cursor++;
    return true;
  }

  async back(): Promise<boolean> {
    if (this.cursor === 0) return false;
    const [a, b] = this.joint[--this.cursor]!;
    await this.left.goto(a);
    await this.right.goto(b);
    return true;
  }

  /** Joint steps until `ms` of virtual time have passed or nothing is left; returns how many. */
  async runFor(ms: number): Promise<number> {
    const untilUs = this.nowUs() + ms * 1000;
    let steps = 0;
    while (Math.min(this.left.nextEventUs(), this.right.nextEventUs()) <= untilUs && (await this.forward())) steps++;
    return steps;
  }

  nowUs(): number {
    return Math.max(this.left.frame().nowUs, this.right.frame().nowUs);
  }

  /** Applies a fault or a client action to both runs (in the past: a new branch in each). */
  act(action: Action): void {
    this.mark();
    if (action.kind !== "fault" && action.kind !== "client") {
      throw new UserInputError(`compare: ${action.kind} names one run's message or timer, and the two runs have different ones — steer both with faults (crash, restart, cut, partition, heal) or a txn`);
    }
    this.left.act(action);
    this.right.act(action);
    if (this.cursor < this.joint.length - 1) this.joint = this.joint.slice(0, this.cursor + 1);
    this.joint[this.cursor] = [this.left.step, this.right.step];
  }

  private mark(): void {
    this.since = [this.left.world.sim.trace.count, this.right.world.sim.trace.count];
  }

  frames(): [Frame, Frame] {
    return [this.left.frame(), this.right.frame()];
  }
}

/**
 * One line per run comparing where its participants stand: "in doubt (Yes): p1 p2 p3" or
 * "committed: p1 · aborted: p2 p3", with the invariants that broke.
 */
export function standing(f: Frame): string {
  const groups = new Map<string, string[]>();
  for (const n of f.nodes) {
    if (n.role !== "participant") continue;
    const state = n.status === "down" ? "down" : (n.fields[0]?.[0] !== "locks" ? n.fields[0]?.[1] : undefined) ?? "idle";
    groups.set(state, [...(groups.get(state) ?? []), n.id]);
  }
  const parts = [...groups].map(([state, ids]) => `${state}: ${ids.join(" ")}`);
  const bad = f.verdicts.filter((v) => !v.ok).map((v) => v.checker);
  return `${parts.join(" · ")}${bad.length > 0 ? ` · ✗ ${bad.join(", ")}` : ""}`;
}
