/**
 * What the whole-API actors share: the book of sessions they opened (for re-attaching stale,
 * live and borrowed ones) and a watch on client-node crashes (an op in flight on a node that
 * crashes never completes; the actor must not wait for it).
 */
import type { Rng } from "../../sim/rng.js";
import type { Simulator } from "../../sim/simulator.js";
import type { ZooKeeper } from "../../zk/client/index.js";

interface BookEntry {
  zk: ZooKeeper;
  node: string;
  /** The incarnation of the node the handle lives in: a crash leaves its session orphaned. */
  incarnation: number;
  ended: boolean;
}

export interface Reattach {
  sessionId: bigint;
  passwd: Uint8Array;
  /** Present the password with a flipped byte: the server must refuse it. */
  wrongPassword: boolean;
}

/**
 * The sessions the actors opened, whether a handle still holds each, and which are borrowed.
 * A session is re-attached with its password only when no handle holds it any more — closed,
 * expired, or orphaned by its node's crash (then it is resumed while it lives) — and by one
 * borrower at a time: two live handles of one session, each with its own xid counter, make the
 * servers pair one handle's request with the other's txn (Java's CommitProcessor matches by
 * session and cxid), which ZooKeeper leaves undefined. A live session is presented only with a
 * wrong password (refused; its holder's connection on that server is closed all the same).
 */
export class SessionBook {
  private readonly entries: BookEntry[] = [];
  private readonly borrowed = new Set<bigint>();

  constructor(private readonly sim: Simulator) {}

  opened(zk: ZooKeeper, node: string): void {
    this.entries.push({ zk, node, incarnation: this.sim.node(node).incarnation, ended: false });
    if (this.entries.length > 64) this.entries.shift();
  }

  /** The handle closed, expired or was abandoned: its session is stale now. */
  ended(zk: ZooKeeper): void {
    const e = this.entries.find((x) => x.zk === zk);
    if (e !== undefined) e.ended = true;
  }

  private held(e: BookEntry): boolean {
    const node = this.sim.node(e.node);
    return !e.ended && node.incarnation === e.incarnation && node.status !== "down";
  }

  /** A session to re-attach from `node` (see the header); undefined when there is none. */
  pick(rng: Rng, node: string): Reattach | undefined {
    const known = this.entries.filter((e) => e.zk.getSessionId() !== 0n && !this.borrowed.has(e.zk.getSessionId()) && (!this.held(e) || e.node !== node));
    if (known.length === 0) return undefined;
    const e = rng.pick(known);
    const held = this.held(e);
    return { sessionId: e.zk.getSessionId(), passwd: e.zk.getSessionPasswd(), wrongPassword: held || rng.chance(0.3) };
  }

  borrow(sessionId: bigint): void {
    this.borrowed.add(sessionId);
  }

  giveBack(sessionId: bigint): void {
    this.borrowed.delete(sessionId);
  }
}

/** What a call raced with its node's crash settles with when the crash wins. */
export const CRASHED: unique symbol = Symbol("crashed");

/** Promises that settle when a client node crashes: what an op in flight on it is raced with. */
export class CrashWatch {
  private readonly waiting = new Map<string, { promise: Promise<typeof CRASHED>; resolve: (v: typeof CRASHED) => void }>();

  constructor(private readonly sim: Simulator) {
    sim.trace.subscribe(
      (e) => {
        const w = this.waiting.get(e.node);
        if (w === undefined) return;
        this.waiting.delete(e.node);
        w.resolve(CRASHED);
      },
      ["crash"],
    );
  }

  /** Settles (with CRASHED) at the next crash of `node`. */
  of(node: string): Promise<typeof CRASHED> {
    let w = this.waiting.get(node);
    if (w === undefined) {
      const d = this.sim.deferred<typeof CRASHED>();
      w = { promise: d.promise, resolve: (v) => d.resolve(v) };
      this.waiting.set(node, w);
    }
    return w.promise;
  }
}
