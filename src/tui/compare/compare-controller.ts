/**
 * The compare screen's state outside React: the two runs, run/pause, the selected node, the
 * command line and the help overlay. Keys are read by the same `keyIntent` as the single-run
 * app; the intents that make sense for two runs act on both (step, back, run, crash, restart,
 * pause, isolate, heal, a transaction, commands), the rest say why not. Work on the sessions is
 * queued, one intent at a time, as in controller.ts.
 */
import { isUserInputError } from "../../sim/errors.js";
import type { Frame } from "../../stepper/types.js";
import { parseCommand } from "../commands.js";
import type { Intent } from "../keys.js";
import type { Mode } from "../controller.js";
import { sharedViewIntent } from "../view-intents.js";
import { CompareSession } from "./compare-session.js";
import { executeCompare } from "./compare-text.js";

export interface CompareView {
  frames: [Frame, Frame];
  step: number;
  running: boolean;
  node: number;
  mode: Mode;
  message: string;
  quit: boolean;
}

export class CompareController {
  state: CompareView;
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private txns = 0;

  constructor(readonly compare: CompareSession) {
    this.state = { frames: compare.frames(), step: 0, running: false, node: 0, mode: { kind: "normal" }, message: "COMPARE 2PC │ 3PC — the same faults hit both runs; ? for keys", quit: false };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  idle(): Promise<void> {
    return this.queue;
  }

  dispatch(intent: Intent): Promise<void> {
    const command = this.immediate(intent);
    if (command !== undefined) {
      this.queue = this.queue.then(() => this.run(command)).then(() => this.notify());
    }
    this.notify();
    return this.queue;
  }

  /** One tick while running: one joint step. */
  tick(): Promise<void> {
    return this.state.running ? this.dispatch({ kind: "step" }) : this.queue;
  }

  private set(patch: Partial<CompareView>): void {
    this.state = { ...this.state, ...patch };
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  /** Applies the view part of an intent; returns the command text it runs on both sessions, if any. */
  private immediate(intent: Intent): string | undefined {
    const s = this.state;
    const nodes = s.frames[0].nodes;
    const selected = nodes[s.node]?.id ?? "co";
    const shared = sharedViewIntent(s, intent, nodes);
    if (shared !== undefined) {
      this.set(shared.patch);
      return shared.command;
    }
    switch (intent.kind) {
      case "quit":
        return void this.set({ quit: true, running: false });
      case "toggle-run":
        return void this.set({ running: !s.running, message: s.running ? "paused" : "running: one joint step per tick" });
      case "tick":
      case "step":
        return "step";
      case "back":
        return "back";
      case "fault": {
        if (intent.verb === "isolate") return `cut ${selected} ${nodes.filter((n) => n.id !== selected && n.role !== "client").map((n) => n.id).join(",")}`;
        if (intent.verb === "pause") return `${nodes[s.node]?.status === "paused" ? "resume" : "pause"} ${selected}`;
        return `${intent.verb} ${selected}`;
      }
      case "heal":
        return "heal";
      case "write":
        return `txn c1 k${++this.txns} ${this.txns}`;
      default:
        return void this.set({ message: "not when comparing: the two runs have different messages, timers and branches (? for keys)" });
    }
  }

  private async run(text: string): Promise<void> {
    try {
      const lines = await executeCompare(this.compare, parseCommand(text), 200);
      this.set({ message: lines[0] ?? "" });
    } catch (err) {
      if (!isUserInputError(err)) throw err;
      this.set({ message: `✗ ${err.message}`, running: false });
    }
    this.set({ frames: this.compare.frames(), step: this.compare.step });
  }
}
