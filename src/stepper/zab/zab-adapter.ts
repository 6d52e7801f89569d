/**
 * The ZAB adapter of the stepping interface: the real ZooKeeper ensemble (QuorumPeer servers
 * s1…sN running FastLeaderElection and ZAB over TCP connections) with client nodes c1, c2, the
 * ZAB safety checkers live, and the book's vocabulary for messages, state and narration.
 *
 * Variants: "3" (three servers, the default), "5" (five), "minority-commit" (three servers
 * whose leader commits on its own ACK — a deliberately broken build: the invariants panel must
 * name what breaks), and "bug-<n>" for each defect of the bug zoo (three servers with
 * ZOOKEEPER-<n> re-injected: `zksim bugs`).
 *
 * The world is ready when one leader serves, every running server serves, and every client has
 * a session.
 */
import { Simulator } from "../../sim/simulator.js";
import { UserInputError } from "../../sim/errors.js";
import type { PendingMessage } from "../../sim/network.js";
import { subscribeCheckers, type Checker } from "../../check/checker.js";
import { ZAB_CHECKERS } from "../../check/zab/index.js";
import { ConnectionFifoChecker } from "../../check/kernel/connection-fifo.js";
import { NoDeliveryAcrossCutChecker } from "../../check/kernel/no-delivery-across-cut.js";
import { SessionOrderChecker } from "../../check/client/session-order.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG } from "../../zk/server/quorum/quorum-peer.js";
import type { QuorumServer } from "../../zk/server/quorum/quorum-verifier.js";
import { DEFAULT_SERVER_CONFIG } from "../../zk/server/zoo-keeper-server.js";
import { BUG_IDS, type BugId } from "../../zk/server/bug-id.js";
import { createClient, type ZooKeeper } from "../../zk/client/index.js";
import { CreateMode, Ids, zxidHex } from "../../zk/proto/records.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import type { ClientOp, NodeView, ProtocolAdapter, World } from "../types.js";
import { ZabStateFold } from "./zab-state.js";
import { isZabDecisive, narrateZab, zabBookOfTerm, zabBookOfType, type ZabNarrationContext } from "./zab-narrate.js";
import { QuorumBookTerms } from "../../zk/server/quorum/zab-book-terms.js";
import { zabThreats } from "./zab-threats.js";

export const ZAB_CLIENTS = ["c1", "c2"] as const;
export const ZAB_SESSION_TIMEOUT_MS = 6_000;

export interface ZabWorld extends World {
  readonly servers: readonly string[];
  readonly clientIds: readonly string[];
  readonly clients: Map<string, ZooKeeper>;
  readonly fold: ZabStateFold;
  /** The book term of each recent quorum message, by id (ACK-LD, the history Ie′…). */
  readonly terms: QuorumBookTerms;
}

/** Quorum messages whose term is remembered. */
const TERMS_KEPT = 20_000;

/** The ZAB checkers that judge as they go (liveness judges the end of a run, not a moment). */
function liveCheckers(): Checker[] {
  const zab = [...ZAB_CHECKERS.entries()].filter(([name]) => name !== "zab.liveness").map(([, make]) => make());
  return [...zab, new NoDeliveryAcrossCutChecker(), new ConnectionFifoChecker(), new SessionOrderChecker()];
}

/** `bug-1154`: three servers with ZOOKEEPER-1154 re-injected (the bug zoo, `zksim bugs`). */
function bugVariant(id: BugId): string {
  return `bug-${id.slice("ZK-".length)}`;
}

function serverCount(variant: string): number {
  return variant === "5" ? 5 : 3;
}

export const zabAdapter: ProtocolAdapter<ZabWorld> = {
  protocol: "zab",
  title: "ZAB — the real ZooKeeper ensemble",
  variants: ["3", "5", "minority-commit", ...BUG_IDS.map(bugVariant)],

  build(seed, variant) {
    const sim = new Simulator({ seed });
    const servers = Array.from({ length: serverCount(variant) }, (_, i) => `s${i + 1}`);
    const members: QuorumServer[] = servers.map((host, i) => ({ sid: i + 1, host, role: "participant" }));
    const canary = variant === "minority-commit" ? ({ canary: "minority-commit" } as const) : {};
    const bugs = new Set(BUG_IDS.filter((id) => bugVariant(id) === variant));
    servers.forEach((id, i) => {
      sim.addNode(id, (ctx) => new QuorumPeer(ctx, { ...DEFAULT_QUORUM_CONFIG, myid: i + 1, members, server: { ...DEFAULT_SERVER_CONFIG, serverId: i + 1, ...canary }, bugs }));
    });
    const clients = new Map<string, ZooKeeper>();
    const connectString = servers.map((s) => `${s}:${CLIENT_PORT}`).join(",");
    for (const id of ZAB_CLIENTS) sim.addNode(id, (ctx) => (clients.set(id, createClient(ctx, { connectString, sessionTimeoutMs: ZAB_SESSION_TIMEOUT_MS })), {}));
    const fold = new ZabStateFold(servers, ZAB_CLIENTS, (sid) => servers[sid - 1] ?? `sid${sid}`);
    sim.trace.subscribe((e) => fold.onEvent(e), ZabStateFold.KINDS);
    const terms = new QuorumBookTerms(TERMS_KEPT);
    sim.trace.subscribe((e) => terms.onSend(e), QuorumBookTerms.KINDS);
    const checkers = liveCheckers();
    subscribeCheckers(sim.trace, checkers);
    for (const id of [...servers, ...ZAB_CLIENTS]) sim.start(id);
    return { sim, servers, clientIds: ZAB_CLIENTS, clients, fold, terms, liveCheckers: checkers };
  },

  ready(world) {
    const peers: QuorumPeer[] = [];
    for (const id of world.servers) {
      const p: unknown = world.sim.node(id).process;
      if (p instanceof QuorumPeer) peers.push(p);
    }
    const leaders = peers.filter((p) => p.state === "LEADING" && p.serving);
    return leaders.length === 1 && peers.every((p) => p.serving) && world.clientIds.every((c) => world.clients.get(c)?.getState() === "CONNECTED");
  },

  bookName(m: PendingMessage, world) {
    return { book: zabBookOfTerm(m.type, world.terms.terms.get(m.id)) ?? zabBookOfType(m.type) ?? m.type, detail: detailOf(m.payload) };
  },

  bookOfSent: (msg, type, world) => zabBookOfTerm(type, world.terms.terms.get(msg)),

  trafficOf(type) {
    if (BACKGROUND_TYPES.has(type)) return "background";
    return zabBookOfType(type) !== undefined ? "protocol" : "client";
  },

  isDecisive: isZabDecisive,

  timerName(label) {
    return ZAB_TIMER_NAMES[label] ?? label;
  },

  bookOfType: zabBookOfType,

  nodeViews(world) {
    const views: NodeView[] = [];
    for (const id of world.servers) {
      const s = world.fold.servers.get(id)!;
      const proposals = [...s.proposals].map(([zxid, acks]) => `${zxid}:${acks.size}ack`).join(" ");
      views.push({
        id,
        status: world.sim.node(id).status,
        role: ROLE_NAMES[s.role] ?? s.role,
        fields: [
          ["epoch", `${s.acceptedEpoch ?? "—"}/${s.currentEpoch ?? "—"}`],
          ["last", s.lastZxid],
          ["commit", s.committedZxid],
          ["sync", s.syncMode],
          ["phase", s.phase],
          ["vote", s.vote],
          ...(proposals !== "" ? ([["proposals", proposals]] as [string, string][]) : []),
        ],
      });
    }
    for (const id of world.clientIds) {
      const c = world.fold.clients.get(id)!;
      const ops = c.ops.map((o) => `${o.op} ${o.path}=${o.outcome}`).join("; ");
      views.push({ id, status: world.sim.node(id).status, role: "client", fields: [["session", `${c.session} ${c.state}`], ["server", c.server], ["ops", ops || "—"]] });
    }
    return views;
  },

  narrate: (event, world) => narrateZab(event, narrationContext(world)),

  threats: zabThreats,

  clientAction(world, client, op) {
    const zk = world.clients.get(client);
    if (zk === undefined) throw new UserInputError(`no client "${client}" (clients: ${world.clientIds.join(", ")})`);
    if (world.sim.node(client).status !== "up") throw new UserInputError(`client ${client} is ${world.sim.node(client).status}`);
    startOp(zk, op).then(ignore, ignore); // the outcome is in the trace (client.complete)
  },
};

function startOp(zk: ZooKeeper, op: ClientOp): Promise<unknown> {
  switch (op.op) {
    case "create":
      return zk.create(op.path, op.data, Ids.OPEN_ACL_UNSAFE, op.ephemeral === true ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT);
    case "set":
      return zk.setData(op.path, op.data, -1);
    case "delete":
      return zk.delete(op.path, -1);
    case "get":
      return zk.getData(op.path);
    case "txn":
      throw new UserInputError(`${op.op}: a commit protocol's transaction; ZooKeeper's clients write with write/set/delete`);
  }
}

function ignore(): void {}

function detailOf(payload: unknown): string {
  if (typeof payload !== "object" || payload === null) return "";
  const p = payload as Record<string, unknown>;
  if (p.kind === "fle.notification") return `s${String(p.leader)} @${typeof p.zxid === "bigint" ? zxidHex(p.zxid) : "?"} ${String(p.state)}`;
  if (typeof p.zxid === "bigint") return zxidHex(p.zxid);
  return "";
}

const BACKGROUND_TYPES = new Set(["PING", "ping", "pong", "qcm.initial"]);

function narrationContext(world: ZabWorld): ZabNarrationContext {
  return { noteOf: (e) => world.fold.noteOf(e), termOf: (id) => world.terms.terms.get(id), quorum: world.fold.quorum };
}

const ROLE_NAMES: Record<string, string> = { LEADING: "leader", FOLLOWING: "follower", OBSERVING: "observer", LOOKING: "looking", down: "down" };

/** Every timer of the ensemble and its clients, by what it is for (ZooKeeper's words: the book names no timers). */
export const ZAB_TIMER_NAMES: Readonly<Record<string, string>> = {
  "leader-tick": "leader tick (PING, quorum check)",
  "learner-watchdog": "follower watchdog (leader silent?)",
  "fle.notTimeout": "election timeout: send the vote again",
  "fle.finalizeWait": "election: wait for a better vote (finalizeWait)",
  "session-expiry": "session expiry check",
  "zk-client.tick": "client tick (ping / timeouts)",
  "zk-client.reconnect": "client: try the next server",
  "zk-client.rw-probe": "client: read-write server probe",
  "leader-discovery-timeout": "discovery timeout (initLimit)",
  "leader-newleader-timeout": "ACK-LD timeout (initLimit)",
  "learner-connect-retry": "connect to the leader again",
  "learner-log-fsync": "follower: log fsynced, announce it",
  "qcm.loopback": "election: its own vote to itself",
  "snapshot-chunk": "snapshot: write the next chunk",
  "container-check": "container node check",
  "read-only-grace": "no quorum: start read-only",
};
