/**
 * The Multi-Paxos adapter of the stepping interface: three replicas r1…r3 (each an acceptor,
 * learner and proposer of a replicated log that drives a key-value store; one of them the
 * distinguished proposer, Chubby's master, with its lease) and two clients c1, c2 that send
 * only what the learner asks (`write c1 /k v` puts key /k, `read c1 /k` gets it), retrying
 * through leader changes. Every message is a datagram.
 *
 * Live checkers: per-slot agreement, state-machine safety, and linearizability of the clients'
 * history (judged afresh at every frame: the histories here are short).
 *
 * Variants: "correct" (the default), and the broken twins "skip-phase-1" (a new leader
 * without phase 1) and "no-lease" (reads without Chubby's master lease).
 *
 * The world is ready once a leader leads and every other replica has heard its heartbeat.
 */
import { Simulator } from "../../sim/simulator.js";
import { UserInputError, unreachable } from "../../sim/errors.js";
import { subscribeCheckers, type Checker } from "../../check/checker.js";
import { MultiPaxosSlotAgreementChecker } from "../../check/protocols/multipaxos-slot-agreement.js";
import { MultiPaxosStateMachineChecker } from "../../check/protocols/multipaxos-state-machine.js";
import { MultiPaxosLinearizableChecker } from "../../check/protocols/multipaxos-linearizable.js";
import { MultiPaxosClient, MultiPaxosReplica, commandId, type MultiPaxosMessage } from "../../protocols/multi-paxos/index.js";
import type { ClientOp, NodeView, ProtocolAdapter, World } from "../types.js";
import { kindVocabulary } from "../vocabulary.js";
import { JudgedNow } from "../judged-now.js";
import { MP_DECISIVE, multiPaxosBookOfType, multiPaxosTrafficOf, narrateMultiPaxos } from "./multipaxos-narrate.js";
import { ClientOps, multiPaxosNodeView } from "./multipaxos-views.js";
import { logPanel } from "./multipaxos-log-panel.js";
import { multiPaxosThreats } from "./multipaxos-threats.js";

export const MP_REPLICAS = ["r1", "r2", "r3"] as const;
export const MP_CLIENTS = ["c1", "c2"] as const;
export const MP_HEARTBEAT_MS = 50;
export const MP_LEASE_MS = 120;
/** The drift the lease keeps a margin for (the leader counts 120·0.9/1.1 ≈ 98 ms of its clock). */
export const MP_CLOCK_DRIFT_PCT = 10;

export type MultiPaxosLearnVariant = "correct" | "skip-phase-1" | "no-lease";

export interface MultiPaxosWorld extends World {
  readonly ops: ClientOps;
}

function liveCheckers(): Checker[] {
  return [new MultiPaxosSlotAgreementChecker(), new MultiPaxosStateMachineChecker(), new JudgedNow(() => new MultiPaxosLinearizableChecker())];
}

function inspectOf(world: World, id: string): Record<string, unknown> | undefined {
  const node = world.sim.node(id);
  if (node.status === "down") return undefined;
  return (node.process as { inspect?: () => Record<string, unknown> } | undefined)?.inspect?.();
}

const TIMER_NAMES: Record<string, string> = {
  "multipaxos.tick": "tick (heartbeat / election timeout)",
  "client.timeout": "request timeout: try the next replica",
  "client.redirect": "follow the redirect",
  "client.think": "next request",
};

export const multiPaxosAdapter: ProtocolAdapter<MultiPaxosWorld> = {
  protocol: "multipaxos",
  title: "Multi-Paxos — a replicated log with a master (Chubby)",
  variants: ["correct", "skip-phase-1", "no-lease"],

  build(seed, variant) {
    const v = variant as MultiPaxosLearnVariant;
    const sim = new Simulator({ seed, network: { minDelayUs: 1_000, maxDelayUs: 3_000 } });
    const replicas = [...MP_REPLICAS];
    replicas.forEach((id, index) =>
      sim.addNode(
        id,
        (ctx) =>
          new MultiPaxosReplica(ctx, {
            index,
            replicas,
            heartbeatMs: MP_HEARTBEAT_MS,
            electionTimeoutMinMs: 200,
            electionTimeoutMaxMs: 400,
            leaseMs: v === "no-lease" ? 0 : MP_LEASE_MS,
            maxClockDriftPct: MP_CLOCK_DRIFT_PCT,
            variant: v === "skip-phase-1" ? "skip-phase-1" : "correct",
          }),
        { fsyncLatencyUs: 2_000 },
      ),
    );
    for (const id of MP_CLIENTS) sim.addNode(id, (ctx) => new MultiPaxosClient(ctx, { replicas, keys: 1, requestTimeoutMs: 200, thinkMsMax: 0, readOnly: false, stopAtMs: Infinity, scripted: true }));
    const ops = new ClientOps(MP_CLIENTS);
    sim.trace.subscribe((e) => ops.onEvent(e), ClientOps.KINDS);
    const checkers = liveCheckers();
    subscribeCheckers(sim.trace, checkers);
    for (const id of [...replicas, ...MP_CLIENTS]) sim.start(id);
    return { sim, ops, liveCheckers: checkers };
  },

  ready(world) {
    const states = MP_REPLICAS.map((id) => inspectOf(world, id));
    const leaders = MP_REPLICAS.filter((_, i) => states[i]?.role === "leader");
    return leaders.length === 1 && states.every((s, i) => MP_REPLICAS[i] === leaders[0] || s?.leader === leaders[0]);
  },

  ...kindVocabulary(multiPaxosBookOfType, detailOf, TIMER_NAMES),

  nodeViews(world): NodeView[] {
    return [...MP_REPLICAS, ...MP_CLIENTS].map((id) => multiPaxosNodeView(world.sim.node(id), inspectOf(world, id), world.ops));
  },

  panel: (world) => logPanel(MP_REPLICAS, MP_REPLICAS.map((id) => inspectOf(world, id))),

  narrate: (event) => narrateMultiPaxos(event),

  trafficOf: multiPaxosTrafficOf,

  isDecisive: (event) => MP_DECISIVE.has(event.kind),

  threats: multiPaxosThreats,

  clientAction(world, client, op) {
    const node = (MP_CLIENTS as readonly string[]).includes(client) ? world.sim.node(client) : undefined;
    if (node === undefined) throw new UserInputError(`no client "${client}" (clients: ${MP_CLIENTS.join(", ")})`);
    if (node.status !== "up") throw new UserInputError(`client ${client} is ${node.status}`);
    const c = node.process as MultiPaxosClient;
    if (op.op === "txn") throw new UserInputError(`${op.op}: a commit protocol's transaction; the Multi-Paxos store takes write (put) and read (get)`);
    const [kind, value] = commandOf(op);
    if (!c.submit(kind, op.path, value)) throw new UserInputError(`${client} still waits for the answer to its last request (one at a time: run on, or use the other client)`);
  },
};

/** A ZooKeeper-style client op as a key-value command: create/set put the key, get reads it. */
function commandOf(op: Exclude<ClientOp, { op: "txn" }>): ["put" | "get", string | undefined] {
  switch (op.op) {
    case "create":
    case "set":
      return ["put", op.data];
    case "get":
      return ["get", undefined];
    case "delete":
      throw new UserInputError("the Multi-Paxos store has no delete: write (put) or read (get) a key");
    default:
      return unreachable(op);
  }
}

function detailOf(m: MultiPaxosMessage): string {
  switch (m.kind) {
    case "prepare":
      return `ballot ${m.ballot}, slots ${m.fromSlot}…`;
    case "promise":
      return `ballot ${m.ballot}${m.entries.length > 0 ? `, had ${m.entries.map((e) => `${e.slot}:${commandId(e.value)}`).join(" ")}` : ""}`;
    case "accept":
      return `slot ${m.slot} [${m.ballot}, ${commandId(m.value)}]`;
    case "accepted":
      return `slot ${m.slot} ballot ${m.ballot}`;
    case "nack":
      return `ballot ${m.ballot} < promised ${m.promised}`;
    case "chosen":
      return `slot ${m.slot} = ${commandId(m.value)}`;
    case "heartbeat":
      return `ballot ${m.ballot}, applied ${m.chosenUpTo}`;
    case "heartbeat-ack":
      return `ballot ${m.ballot}`;
    case "catchup":
      return `from slot ${m.fromSlot}`;
    case "request":
      return `#${m.reqId} ${m.op} ${m.key}${m.op === "put" ? `=${m.value ?? ""}` : ""}`;
    case "reply":
      return `#${m.reqId}${m.value !== null ? ` = ${m.value}` : ""}`;
    case "redirect":
      return `#${m.reqId} → ${m.leader ?? "?"}`;
  }
}
