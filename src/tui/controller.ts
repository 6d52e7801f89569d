/**
 * The interactive app's state outside React: the session, the current frame, run/pause and
 * speed, the selected pending row and node, the command line, the help overlay and the
 * what-if confirmation. Every change goes through `dispatch` (one intent at a time, in order:
 * the session is not re-entrant) and ends with `notify`, so the components stay a projection.
 *
 * Faults chosen by key (crash, restart, pause, isolate) are previewed first: the fork runs
 * ahead in the background and the learner confirms (y / enter) or cancels (n / esc).
 */
import { isUserInputError } from "../sim/errors.js";
import type { Session } from "../stepper/session.js";
import type { Action, Frame } from "../stepper/types.js";
import { whatIf } from "../stepper/what-if.js";
import { parseCommand } from "./commands.js";
import { execute } from "./execute.js";
import type { Intent } from "./keys.js";
import { sharedViewIntent } from "./view-intents.js";

/** Steps per redraw tick while running, by speed level. */
export const SPEEDS = [1, 2, 5, 20, 100, 500] as const;
export const TICK_MS = 100;
/** Protocols whose clients run transactions (the w key starts one) rather than ZooKeeper writes. */
const COMMIT_PROTOCOLS = new Set(["2pc", "3pc"]);

export type Mode =
  | { kind: "normal" }
  | { kind: "help" }
  | { kind: "command"; text: string }
  | { kind: "confirm"; label: string; action: Action; preview: string[] | undefined };

export interface ViewState {
  frame: Frame;
  running: boolean;
  speed: number;
  selected: number;
  node: number;
  mode: Mode;
  message: string;
  quit: boolean;
  /** The learner asked for the lessons menu (the app leaves this session). */
  menu: boolean;
}

export class Controller {
  state: ViewState;
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private writes = 0;
  private ticking = false;

  constructor(
    readonly session: Session,
    private readonly onGoal: () => void,
    private readonly save: (file: string) => void,
    intro: string,
    /** The lesson's idea and steps, for the help screen (empty in free play). */
    readonly lessonLines: readonly string[] = [],
  ) {
    this.state = { frame: session.frame(), running: false, speed: 0, selected: 0, node: 0, mode: { kind: "normal" }, message: intro, quit: false, menu: false };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies an intent. What only changes the view (modes, selection, speed, the command line)
   * happens at once, so keys typed while the session is busy read the mode they were typed in;
   * what touches the session is queued and runs in order. Resolves when the queue is drained.
   */
  dispatch(intent: Intent): Promise<void> {
    const work = this.immediate(intent);
    if (work !== undefined) {
      this.enqueue(work);
      // While the learner reads the screen, re-execute the previous step: going back is then a swap.
      if (!this.state.running) this.enqueue(() => this.session.prepareBack());
    }
    this.notify();
    return this.queue;
  }

  /** Resolves when every queued intent is done. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** One redraw tick while running: `SPEEDS[speed]` steps (skipped while the last one still runs). */
  async tick(): Promise<void> {
    if (!this.state.running || this.ticking) return;
    this.ticking = true;
    try {
      await this.dispatch({ kind: "tick" });
    } finally {
      this.ticking = false;
    }
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).then(
      () => this.notify(),
      (err: unknown) => {
        if (!isUserInputError(err)) throw err;
        this.set({ message: `✗ ${err.message}` });
        this.notify();
      },
    );
  }

  /** Applies the view part of an intent; returns the session work it needs, if any. */
  private immediate(intent: Intent): (() => Promise<void>) | undefined {
    const s = this.state;
    const nodes = s.frame.nodes;
    const clamp = (i: number) => Math.max(0, Math.min(SPEEDS.length - 1, i));
    const shared = sharedViewIntent(s, intent, nodes);
    if (shared !== undefined) {
      this.set(shared.patch);
      const text = shared.command;
      return text === undefined ? undefined : () => this.run(text);
    }
    switch (intent.kind) {
      case "quit":
        return void this.set({ quit: true, running: false });
      case "menu":
        return void this.set({ menu: true, running: false });
      case "toggle-run":
        return void this.set({ running: !s.running, message: s.running ? "paused" : `running ×${SPEEDS[s.speed]}` });
      case "speed":
        return void this.set({ speed: clamp(s.speed + intent.delta), message: `speed ×${SPEEDS[clamp(s.speed + intent.delta)]}` });
      case "select":
        return void this.set({ selected: Math.max(0, Math.min(s.frame.pending.length - 1, s.selected + intent.delta)) });
      case "confirm": {
        if (s.mode.kind !== "confirm") return undefined;
        const action = s.mode.action;
        this.set({ mode: { kind: "normal" } });
        return async () => {
          const forks = !this.session.atNewest;
          this.session.act(action);
          this.refresh(forks ? `branch ${this.session.frame().branch} opened: the old future is kept (B switches branches)` : "done");
        };
      }
      case "fault": {
        const action = faultAction(intent.verb, nodes[s.node]?.id ?? "", nodes.filter((n) => n.role !== "client" && n.id !== nodes[s.node]?.id).map((n) => n.id), nodes[s.node]?.status);
        this.set({ mode: { kind: "confirm", label: describe(action), action, preview: undefined }, running: false });
        return () => this.preview(action);
      }
      default:
        return () => this.work(intent);
    }
  }

  private set(patch: Partial<ViewState>): void {
    this.state = { ...this.state, ...patch };
  }

  private refresh(message?: string): void {
    const frame = this.session.frame();
    const selected = Math.min(this.state.selected, Math.max(0, frame.pending.length - 1));
    this.set({ frame, selected, ...(message !== undefined ? { message } : {}) });
    if (frame.goal?.reached === true) this.onGoal();
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  private async run(text: string): Promise<void> {
    const out = await execute(this.session, parseCommand(text));
    this.refresh(out.lines.join(" · "));
  }

  /** The intents that touch the session (queued, one at a time). */
  private async work(intent: Intent): Promise<void> {
    const s = this.state;
    const row = String(s.selected + 1);
    switch (intent.kind) {
      case "tick": {
        for (let i = 0; i < SPEEDS[s.speed]!; i++) {
          if (!(await this.session.forward())) {
            this.set({ running: false });
            return this.refresh("nothing left to run");
          }
        }
        return this.refresh(`running ×${SPEEDS[s.speed]} · step ${this.session.step}`);
      }
      case "step":
        return this.run("step");
      case "back":
        return this.run("back");
      case "pending":
        return this.run(intent.verb === "delay" ? `delay ${row} 100` : `${intent.verb} ${row}`);
      case "activate": {
        const p = s.frame.pending[s.selected];
        if (p === undefined) return this.set({ message: "nothing pending" });
        return this.run(p.kind === "timer" ? `fire ${row}` : `deliver ${row}`);
      }
      case "heal":
        return this.run("heal");
      case "write": {
        const n = ++this.writes;
        return this.run(COMMIT_PROTOCOLS.has(s.frame.protocol) ? `txn c1 k${n} ${n}` : `write c1 /w${n} ${n}`);
      }
      case "branch":
        return this.run(`branch ${(s.frame.branch + 1) % s.frame.branches}`);
      case "save": {
        const file = `zksim-${s.frame.protocol}-session.json`;
        this.save(file);
        return this.set({ message: `saved to ${file} (open it again: zksim learn ${s.frame.protocol} --open ${file})` });
      }
      default:
        return; // view-only intents are applied by `immediate`
    }
  }

  private async preview(action: Action): Promise<void> {
    const label = describe(action);
    const lines = await whatIf(this.session, action);
    if (this.state.mode.kind === "confirm" && this.state.mode.action === action) this.set({ mode: { kind: "confirm", label, action, preview: lines } });
  }
}

function faultAction(verb: "crash" | "restart" | "pause" | "isolate", node: string, others: string[], status: string | undefined): Action {
  switch (verb) {
    case "crash":
      return { kind: "fault", fault: { kind: "crash", node } };
    case "restart":
      return { kind: "fault", fault: { kind: "restart", node } };
    case "pause":
      return { kind: "fault", fault: { kind: status === "paused" ? "resume" : "pause", node } };
    case "isolate":
      return { kind: "fault", fault: { kind: "cut", from: [node], to: others } };
  }
}

export function describe(action: Action): string {
  if (action.kind !== "fault") return action.kind;
  const f = action.fault;
  if ("node" in f) return `${f.kind} ${f.node}`;
  if (f.kind === "cut") return `cut ${f.from.join(",")} from ${f.to.join(",")}`;
  return f.kind;
}
