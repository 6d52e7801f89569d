/**
 * The interactive app's state outside React: the session, the current frame (and the one
 * before the last step, whose changed fields are marked), run/pause and speed, the selected
 * pending row and node, the narration's scrollback, the command line, the help overlay, the
 * what-if confirmation, and the box shown over the narration (the lesson's start, the goal
 * reached, a question). Every change goes through `dispatch` (one intent at a time, in order:
 * the session is not re-entrant) and ends with `notify`, so the components stay a projection.
 *
 * Faults chosen by key (crash, restart, pause, isolate) are previewed first: the fork runs
 * ahead in the background and the learner confirms (y / enter) or cancels (n / esc).
 *
 * Predictions: after each step the last step's events are offered to the lesson's predictions
 * (each asked once); at the first that asks, a run stops and the question is shown while the
 * engine runs ahead in a fork for its answer. The learner's pick is judged against it; the
 * tally is the session's.
 */
import { isUserInputError } from "../sim/errors.js";
import { printFault } from "../sim/fault-grammar.js";
import type { Session } from "../stepper/session.js";
import type { Action, Frame } from "../stepper/types.js";
import { whatIf } from "../stepper/what-if.js";
import { parseCommand } from "./commands.js";
import { execute } from "./execute.js";
import type { Intent } from "./keys.js";
import type { Lesson, Question } from "./lessons/lesson.js";
import type { Box, PredictionStats } from "./boxes.js";
import { sharedViewIntent } from "./view-intents.js";

/** Steps per redraw tick while running, by speed level. */
export const SPEEDS = [1, 2, 5, 20, 100, 500] as const;
export const TICK_MS = 100;
/** Protocols whose clients run transactions (the w key starts one) rather than ZooKeeper writes. */
const COMMIT_PROTOCOLS = new Set(["2pc", "3pc"]);

export type Mode =
  | { kind: "normal" }
  | { kind: "help"; scroll: number }
  | { kind: "command"; text: string }
  | { kind: "confirm"; label: string; action: Action; preview: string[] | undefined };

export interface ViewState {
  frame: Frame;
  /** The frame before the last step or action: the fields it changed are marked. */
  before: Frame | undefined;
  running: boolean;
  speed: number;
  selected: number;
  node: number;
  mode: Mode;
  /** What the last action did (or the intro). */
  message: string;
  quit: boolean;
  /** The learner asked for the lessons menu (the app leaves this session). */
  menu: boolean;
  /** The box over the narration, until closed. */
  box: Box | undefined;
  /** Narration entries (or box lines, while a box is up) scrolled back. */
  scroll: number;
  /** The strip draws the clients' traffic too. */
  clients: boolean;
  predictions: PredictionStats;
}

export class Controller {
  state: ViewState;
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  private writes = 0;
  private ticking = false;
  private readonly asked = new Set<string>();
  /** The question a run stopped at (found after the step that raised it, with the frame of then). */
  private due: { question: Question; aheadMs: number } | undefined;

  constructor(
    readonly session: Session,
    private readonly onGoal: () => void,
    private readonly save: (file: string) => void,
    intro: string,
    /** The lesson (its texts, key fields and predictions); undefined in free play. */
    readonly lesson?: Lesson,
  ) {
    const frame = session.frame();
    this.state = {
      frame,
      before: undefined,
      running: false,
      speed: 0,
      selected: 0,
      node: 0,
      mode: { kind: "normal" },
      message: intro,
      quit: false,
      menu: false,
      box: lesson !== undefined ? { kind: "lesson" } : undefined,
      scroll: 0,
      clients: false,
      predictions: { asked: 0, answered: 0, right: 0 },
    };
  }

  /** The lesson's idea and steps, for the help screen (empty in free play). */
  get lessonLines(): string[] {
    const l = this.lesson;
    return l === undefined ? [] : [`LESSON ${l.title}: ${l.idea}`, ...l.intro.map((x) => `• ${x}`), ""];
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies an intent. What only changes the view (modes, selection, speed, the command line,
   * scrolling, boxes) happens at once, so keys typed while the session is busy read the mode
   * they were typed in; what touches the session is queued and runs in order. Resolves when the
   * queue is drained.
   */
  dispatch(intent: Intent): Promise<void> {
    const box = this.state.box;
    if (box?.kind === "predict" && box.picked === undefined && touchesSession(intent)) {
      this.set({ message: `a question waits: 1–${box.question.choices.length} answers it, esc skips it` });
      this.notify();
      return this.queue;
    }
    const work = this.immediate(intent);
    if (work !== undefined) {
      this.leaveBoxesForAction();
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

  /** A session action closes the lesson's start box and an answered question; the goal box stays until closed. */
  private leaveBoxesForAction(): void {
    const box = this.state.box;
    if (box === undefined || box.kind === "goal") return;
    this.set({ box: undefined, scroll: 0 });
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
      case "scroll":
        return void this.scroll(intent.delta);
      case "clients":
        return void this.set({ clients: !s.clients, message: s.clients ? "the strip leaves the clients' traffic out" : "the strip draws the clients' traffic too" });
      case "close-box":
        return void this.set({ box: undefined, scroll: 0, message: s.box?.kind === "predict" && s.box.picked === undefined ? "question skipped" : s.message });
      case "answer":
        return void this.answer(intent.choice);
      case "confirm": {
        if (s.mode.kind !== "confirm") return undefined;
        const action = s.mode.action;
        const label = s.mode.label;
        this.set({ mode: { kind: "normal" } });
        return async () => {
          const forks = !this.session.atNewest;
          const before = this.session.frame();
          this.session.act(action);
          this.refresh(forks ? `${label}: branch ${this.session.frame().branch} opened (the old future is kept; B switches branches)` : `${label}: done`, before);
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

  /** Back (delta < 0) or forward in the narration, or in the box while one is up. */
  private scroll(delta: number): void {
    const s = this.state;
    if (s.mode.kind === "help") return this.set({ mode: { kind: "help", scroll: Math.max(0, s.mode.scroll + delta) } });
    const limit = s.box !== undefined ? 200 : s.frame.recent.length;
    const scroll = Math.max(0, Math.min(limit, s.scroll - delta));
    this.set({ scroll, message: s.box !== undefined ? s.message : scroll === 0 ? "narration: back to now" : `narration: ${scroll} line(s) back in time (] newer)` });
  }

  private set(patch: Partial<ViewState>): void {
    this.state = { ...this.state, ...patch };
  }

  /**
   * The new frame after session work; `before` is the frame the work started from. `ask`: which
   * question to ask — the one a run stopped at ("stopped"), or one the last step raises (after an
   * action or a single step: "last-step").
   */
  private refresh(message: string | undefined, before: Frame, ask: "stopped" | "last-step" = "last-step"): void {
    const frame = this.session.frame();
    const selected = Math.min(this.state.selected, Math.max(0, frame.pending.length - 1));
    const reached = frame.goal?.reached === true && this.state.frame.goal?.reached !== true;
    this.set({ frame, before, selected, scroll: 0, ...(message !== undefined ? { message } : {}) });
    if (reached) {
      this.set({ box: { kind: "goal" }, running: false });
      this.onGoal();
    }
    const due = this.due ?? (ask === "last-step" ? this.pendingQuestion() : undefined);
    this.due = undefined;
    if (due !== undefined && this.state.box?.kind !== "goal") this.askQuestion(due);
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  private async run(text: string): Promise<void> {
    const before = this.session.frame();
    const reached = this.session.goalReached;
    const command = parseCommand(text);
    const out = await execute(this.session, command, { stop: () => (!reached && this.session.goalReached) || this.questionDue() });
    // A step or a run was asked after each of its steps (it stopped at a question); going back asks nothing.
    const stepping = command.kind === "step" || command.kind === "run" || command.kind === "back";
    this.refresh(out.lines.join(" · "), before, stepping ? "stopped" : "last-step");
  }

  /** The intents that touch the session (queued, one at a time). */
  private async work(intent: Intent): Promise<void> {
    const s = this.state;
    const row = String(s.selected + 1);
    switch (intent.kind) {
      case "tick": {
        const before = this.session.frame();
        const reached = this.session.goalReached;
        for (let i = 0; i < SPEEDS[s.speed]!; i++) {
          if (!(await this.session.forward())) {
            this.set({ running: false });
            return this.refresh("nothing left to run", before);
          }
          if ((!reached && this.session.goalReached) || this.questionDue()) break;
        }
        return this.refresh(`running ×${SPEEDS[s.speed]} · step ${this.session.step}`, before, "stopped");
      }
      case "step":
        return this.run("step");
      case "back":
        return this.run("back");
      case "pending":
        return this.run(intent.verb === "delay" ? `delay ${row} 100` : `${intent.verb} ${row}`);
      case "activate": {
        // Enter delivers the selected message (fires the selected timer) now: it goes first, and one step runs it.
        const p = s.frame.pending[s.selected];
        if (p === undefined) return this.set({ message: "nothing pending" });
        const before = this.session.frame();
        await execute(this.session, parseCommand(p.kind === "timer" ? `fire ${row}` : `deliver ${row}`));
        await execute(this.session, parseCommand("step"));
        return this.refresh(`${p.kind === "timer" ? "fired" : "delivered"} ${p.ref} (${p.book}${p.kind === "message" ? ` ${p.from}→${p.to}` : ` on ${p.node}`})`, before);
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

  // ---- predictions ----------------------------------------------------------------------

  /** The first question the last step's events raise (a prediction not asked yet), if any. */
  private pendingQuestion(): { question: Question; aheadMs: number } | undefined {
    const predictions = this.lesson?.predictions ?? [];
    if (predictions.length === 0 || this.asked.size === predictions.length) return undefined;
    const events = this.session.lastStepEvents();
    let frame: Frame | undefined;
    for (const e of events) {
      for (const p of predictions) {
        if (this.asked.has(p.id) || !p.on.includes(e.kind)) continue;
        frame ??= this.session.frame();
        const q = p.ask(e, frame);
        if (q !== undefined) return { question: { ...q, id: p.id, atUs: frame.nowUs }, aheadMs: p.aheadMs };
      }
    }
    return undefined;
  }

  /** A run stops at a decisive step: true when the step just taken raises a question (kept to be asked). */
  private questionDue(): boolean {
    const predictions = this.lesson?.predictions ?? [];
    if (predictions.length === 0 || this.asked.size === predictions.length) return false;
    this.due = this.pendingQuestion();
    return this.due !== undefined;
  }

  /** Asks a question, and has the engine run ahead for its answer. */
  private askQuestion(due: { question: Question; aheadMs: number }): void {
    const { question } = due;
    this.asked.add(question.id);
    const p = this.lesson!.predictions!.find((x) => x.id === question.id)!;
    this.set({ box: { kind: "predict", question }, running: false, scroll: 0, predictions: { ...this.state.predictions, asked: this.state.predictions.asked + 1 } });
    this.enqueue(async () => {
      const { after, events } = await this.session.lookAhead(due.aheadMs);
      const answer = p.answer(question, events, after);
      const box = this.state.box;
      if (box?.kind !== "predict" || box.question !== question) return;
      this.set({ box: { ...box, answer } });
      if (box.picked !== undefined) this.tally(box.picked === answer.choice);
    });
  }

  private answer(choice: number): void {
    const box = this.state.box;
    if (box?.kind !== "predict" || box.picked !== undefined || choice >= box.question.choices.length) return;
    this.set({ box: { ...box, picked: choice }, predictions: { ...this.state.predictions, answered: this.state.predictions.answered + 1 } });
    if (box.answer !== undefined) this.tally(choice === box.answer.choice);
  }

  private tally(right: boolean): void {
    const p = this.state.predictions;
    this.set({ predictions: { ...p, right: p.right + (right ? 1 : 0) }, message: right ? "your prediction was right" : "the engine answered otherwise: see why in the box" });
  }
}

/** Intents that change the run (a question waits for an answer or a skip before any of these). */
function touchesSession(intent: Intent): boolean {
  return ["tick", "toggle-run", "step", "back", "activate", "heal", "write", "branch", "pending", "fault", "command-submit", "confirm"].includes(intent.kind);
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

/** An action as the learner would type it: a fault in the fault grammar (`cut s1 <-> s2 s3`). */
export function describe(action: Action): string {
  return action.kind === "fault" ? printFault(action.fault) : action.kind;
}
