/**
 * A running `zksim serve`: the simulated ensemble paced to the wall clock, the client
 * gateway on the members' ports, fault commands, status lines and online checkers.
 *
 * Pacing: virtual time follows the wall clock. Every `tickMs`, at once when a real client's bytes
 * enter the simulation, and when the next event falls due, the simulator runs every event due up to
 * "now" — virtual µs since the session started — and stops there. Protocol code is synchronous, so
 * `runSync` suffices. The wake-up for the next event is a timer when it is a millisecond or more
 * away and the event loop's next turn when it is nearer, so a simulated hop of tens of µs (the
 * loopback timing profile, serve-timing.ts) costs about that much wall time, not a timer's 1 ms.
 * If the simulator falls behind (a burst of work) it catches up on the next step; it never runs
 * ahead of the wall clock.
 *
 * Faults apply 1 µs after the current virtual time, at an instant where nothing else is due yet
 * (`faultInstantUs`), after the simulation has caught up with "now"; the session then runs to
 * that instant. So a fault is the first event of its instant, exactly as a scenario's fault
 * schedule runs it, and the recording (serve-recorder.ts) lists it as a scenario fault.
 * The control socket listens on loopback only, whatever `bind` says: it can crash servers.
 *
 * Recording: every input from outside (client-links.ts) and every fault is recorded; `close`
 * returns the outcome — trace hash, violations and the session as a replay case — and writes
 * the replay file when `record` names one.
 */
import net from "node:net";
import { performance } from "node:perf_hooks";
import { UserInputError } from "../sim/errors.js";
import { applyFault, type Fault, type FaultAction } from "../sim/faults.js";
import type { Simulator } from "../sim/simulator.js";
import type { AnyCanary } from "../scenario/canaries.js";
import type { ReplayCase } from "../scenario/replay-file.js";
import type { Violation } from "../check/checker.js";
import { msToUs } from "../sim/time.js";
import { QuorumPeer } from "../zk/server/quorum/quorum-peer.js";
import { ClientGateway } from "./client-gateway.js";
import { faultCommandHelp, parseFaultCommand, withGatewaysInPartition } from "./fault-command.js";
import { undoOf } from "../sim/faults.js";
import { buildServeEnsemble, type ServeEnsemble } from "./serve-ensemble.js";
import { ServeRecorder } from "./serve-recorder.js";
import { OnlineWatch } from "./status-lines.js";
import type { ServeSettings } from "./zoo-cfg.js";
import { installServeScenario, type ServeScenario } from "./serve-scenario.js";
import { DEFAULT_SERVE_TIMING, instantGatewayLinks, serveQuorumTiming, serveTiming, type ServeTimingProfile } from "./serve-timing.js";

/** Below this distance to the next event, pacing waits a turn of the event loop rather than a timer (whose granularity is 1 ms). */
const SPIN_BELOW_US = 1000;

export interface ServeOptions {
  settings: ServeSettings;
  seed: number;
  /** Address of the client listeners (default 127.0.0.1). */
  bind?: string;
  /** Loopback control port (0 = any free one; undefined = none). */
  controlPort?: number;
  /** Pacing step (default 5 ms). */
  tickMs?: number;
  /** The replay file written at stop (its journal `<file>.partial` while serving); undefined: in memory only. */
  record?: string;
  /** A deliberately broken server build (a server canary) or bug-zoo ids: for canaries of the checkers. */
  canary?: AnyCanary;
  bugs?: readonly string[];
  out: (line: string) => void;
  /** Closes a connection with no complete frame this long (default 3.8's 10 s; client-gateway.ts). */
  sessionlessCnxnTimeoutMs?: number;
  /** A scenario's settings and fault schedule, applied on the wall clock (serve-scenario.ts). */
  scenario?: ServeScenario;
  /** Link and fsync timings (serve-timing.ts; default "loopback"); a scenario's network and disk win over it. */
  timing?: ServeTimingProfile;
}

/** What a stopped session produced: the replay file's `expected`, and the case itself. */
export interface ServeOutcome {
  traceHash: string;
  violations: Violation[];
  replayCase: ReplayCase;
}

export interface ServeSession {
  ensemble: ServeEnsemble;
  /** Real client port of each member node (`s1` → 2181). */
  clientPorts: Map<string, number>;
  controlPort: number | undefined;
  /** Runs one command line; returns the answer line ("ok: …" or "error: …"). */
  command(line: string): string;
  /** Stops listening and pacing, finishes the checkers; resolves with the violation count. */
  close(): Promise<number>;
  /** After `close`: the trace hash, the violations and the recorded case. */
  outcome(): ServeOutcome | undefined;
}

export async function startServe(options: ServeOptions): Promise<ServeSession> {
  const variant = { ...(options.canary !== undefined ? { canary: options.canary } : {}), ...(options.bugs !== undefined ? { bugs: options.bugs } : {}) };
  const profile = options.timing ?? DEFAULT_SERVE_TIMING;
  const timing = serveTiming(profile, options.scenario ?? {});
  const quorumTiming = serveQuorumTiming(profile, options.settings.quorumTiming);
  const settings: ServeSettings = {
    ...options.settings,
    ...(Object.keys(quorumTiming).length > 0 ? { quorumTiming } : {}),
    ...(instantGatewayLinks(profile, options.scenario ?? {}) ? { instantGatewayLinks: true } : {}),
  };
  const ensemble = buildServeEnsemble(settings, options.seed, variant, { ...(options.scenario !== undefined ? { server: options.scenario.server } : {}), ...timing });
  const { sim } = ensemble;
  const recorder = new ServeRecorder({ seed: options.seed, settings, timing, ...variant, ...(options.scenario !== undefined ? { scenario: options.scenario } : {}) }, options.record);
  const watch = new OnlineWatch(sim, options.out);
  const startMs = performance.now();
  const tickMs = options.tickMs ?? 5;
  let early: NodeJS.Timeout | undefined;
  let immediate = false;
  let stopped: ServeOutcome | undefined;
  const wallUs = (): number => Math.floor((performance.now() - startMs) * 1000);
  /** Every step of the simulation: the journal first, so nothing a client sees is unrecorded. */
  const runTo = (untilUs: number): void => {
    recorder.flush();
    sim.runSync({ untilUs });
  };
  /** Runs `advance` on the event loop's next turn (after pending socket I/O), once however often asked. */
  const advanceSoon = (): void => {
    if (immediate) return;
    immediate = true;
    setImmediate(() => {
      immediate = false;
      advance();
    });
  };
  const advance = (): void => {
    if (stopped !== undefined) return;
    const nowUs = wallUs();
    if (nowUs > sim.nowUs) runTo(nowUs);
    // The next event's wake-up, so that a request's latency is the simulated one, not rounded up
    // to the tick: a timer for what is a millisecond or more away (a timer's granularity), the
    // event loop's next turn for what is nearer (a loopback hop is tens of µs).
    const dueUs = sim.nextEventTimeUs() - wallUs();
    if (dueUs < SPIN_BELOW_US) advanceSoon();
    else if (early === undefined && dueUs < tickMs * 1000) {
      early = setTimeout(() => {
        early = undefined;
        advance();
      }, Math.floor(dueUs / 1000));
    }
  };
  const gateway = new ClientGateway(ensemble, {
    kick: advanceSoon,
    wallMs: () => performance.now(),
    onInput: (input, atUs, events) => recorder.input(input, atUs, events),
    ...(options.sessionlessCnxnTimeoutMs !== undefined ? { sessionlessCnxnTimeoutMs: options.sessionlessCnxnTimeoutMs } : {}),
    onRebind: (m, port, error) => {
      const at = `[${(sim.nowUs / 1e6).toFixed(3)}s]`;
      if (error !== undefined) {
        clientPorts.delete(m.node);
        options.out(`${at} ${m.node} could not re-bind its client port to ${port} after a reconfig: ${error}; it has no client port now`);
      } else {
        clientPorts.set(m.node, port);
        options.out(`${at} ${m.node} re-bound its client port to ${port} (a reconfig changed its client address)`);
      }
    },
  });
  const ports = await recorder.unlessFailed(() => gateway.listen(options.bind ?? "127.0.0.1"));
  const timer = setInterval(advance, tickMs);
  const gateways = new Map(options.settings.members.map((m) => [m.node, ensemble.gatewayOf(m)]));
  if (options.scenario !== undefined) installServeScenario(sim, options.scenario, gateways, options.out);

  const command = (line: string): string => {
    const trimmed = line.trim();
    if (trimmed === "status") return `ok: ${statusText(ensemble)}`;
    if (trimmed === "help") return `ok: ${faultCommandHelp()}`;
    if (stopped !== undefined) return "error: serve has stopped (its recording is closed)";
    try {
      advance();
      const { action, forMs } = parseFaultCommand(trimmed, sim.nodeIds);
      if (forMs !== undefined && undoOf(action).length === 0) throw new UserInputError(`${action.kind}: a "${action.kind}" fault has no undo (leave out "for")`);
      const atUs = scheduleFault(sim, recorder, withGatewaysInPartition(action, gateways), sim.nowUs + 1);
      if (forMs !== undefined) for (const undo of undoOf(action)) scheduleFault(sim, recorder, undo, atUs + msToUs(forMs));
      runTo(atUs);
      advance();
      return `ok: ${trimmed}`;
    } catch (err) {
      if (err instanceof UserInputError) return `error: ${err.message}`;
      throw err;
    }
  };

  const controlPort = options.controlPort;
  const control = controlPort === undefined ? undefined : await recorder.unlessFailed(() => listenControl(controlPort, command));
  const clientPorts = new Map([...ports].map(([m, port]) => [m.node, port]));
  return {
    ensemble,
    clientPorts,
    controlPort: control === undefined ? undefined : (control.address() as net.AddressInfo).port,
    command,
    async close() {
      if (stopped !== undefined) return watch.violationCount;
      clearInterval(timer);
      clearTimeout(early);
      await gateway.close();
      if (control !== undefined) await new Promise<void>((resolve) => control.close(() => resolve()));
      advance();
      // The end a replay's run has (scenario/run.ts): the last trace event.
      const violations = watch.finish(sim.trace.last);
      const traceHash = sim.trace.hash();
      const expected = { traceHash, verdict: violations.length > 0 ? ("fail" as const) : ("pass" as const), violations: violations.map(({ checker, message }) => ({ checker, message })) };
      const replayCase = recorder.replayCase(sim.nowUs, expected);
      stopped = { traceHash, violations, replayCase };
      recorder.finish(replayCase);
      return watch.violationCount;
    },
    outcome: () => stopped,
  };
}

/**
 * Schedules a fault at the first instant ≥ `fromUs` at which no event is queued yet, so that it
 * runs first at its instant, as a scenario's installed fault would; records it. Returns its time.
 */
function scheduleFault(sim: Simulator, recorder: ServeRecorder, action: FaultAction, fromUs: number): number {
  const busy = new Set(sim.pendingList().map((p) => p.atUs));
  let atUs = fromUs;
  while (busy.has(atUs)) atUs++;
  const fault = { atMs: atUs / 1000, ...action } as Fault;
  recorder.fault(fault);
  sim.schedule(atUs, () => applyFault(sim, fault));
  return atUs;
}

/** One line per member: its status and, for a quorum peer, its ZAB state. */
function statusText(ensemble: ServeEnsemble): string {
  return ensemble.settings.members
    .map((m) => {
      const node = ensemble.sim.node(m.node);
      const p = node.process;
      const role = p instanceof QuorumPeer ? ` ${p.state}` : "";
      return `${m.node} ${node.status}${node.status === "down" ? "" : role}`;
    })
    .join(", ");
}

/** The control socket: each line in gets one answer line back. */
async function listenControl(port: number, command: (line: string) => string): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.trim() !== "") socket.write(`${command(line)}\n`);
      }
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}
