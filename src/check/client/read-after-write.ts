/**
 * client.read-after-confirmed-write (opt-in; not among the default checkers): a read invoked
 * after a write to its path was confirmed — by any client — sees that write or a later one.
 *
 * ZooKeeper does NOT promise this (docs/zookeeper.md §6: reads are served by the server a client
 * is connected to, which may lag the leader; only writes are linearizable, reads are sequentially
 * consistent per session). A client that must see what another client confirmed calls
 * `sync(path)` before reading: the server then catches up with the leader first. So this checker
 * judges the user's code, not ZooKeeper: turned on, it fails a run whose code reads without the
 * `sync` its logic needs (a stale config, a lock holder read from a lagging server).
 *
 * What it reads: `getData` and `exists` answered by a server (ok, or NONODE), against the last
 * write to the same path (`create`, `setData`, `delete`) that completed "ok" before the read was
 * invoked. Stale when: after a create or setData, the answer shows the node older (its `mzxid`
 * below the write's zxid) or absent while no delete of the path was ever invoked; after a
 * delete, the answer shows a node created before it (`czxid` below the delete's zxid). Writes
 * inside `multi` are not judged (a path a multi touched is skipped), nor is anything ending
 * "unknown".
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { OpTable, opName, serverPathOf, type Completion, type Invocation } from "../history/client-events.js";
import { hex } from "./znode-paths.js";

const KINDS = ["client.invoke", "client.complete"] as const;

interface ConfirmedWrite {
  op: "create" | "setData" | "delete";
  zxid: bigint;
  by: string;
  atMs: number;
}

export class ReadAfterConfirmedWriteChecker implements Checker<KindsOf<typeof KINDS>> {
  readonly name = "client.read-after-confirmed-write";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly ops = new OpTable(this.log);
  /** Path → the last write confirmed so far. */
  private readonly confirmed = new Map<string, ConfirmedWrite>();
  /** Reads in flight (`client/opId`) → the write confirmed before each was invoked. */
  private readonly floors = new Map<string, ConfirmedWrite>();
  /** Paths a delete was ever invoked on, or a multi touched: an absent node there is not judged. */
  private readonly deletable = new Set<string>();
  private readonly multiPaths = new Set<string>();

  onEvent(e: TraceEvent<KindsOf<typeof KINDS>>): void {
    if (e.kind === "client.invoke") {
      const inv = this.ops.invoke(e);
      if (inv !== undefined) this.invoked(inv);
      return;
    }
    const paired = this.ops.complete(e);
    if (paired !== undefined) this.completed(paired.inv, paired.done);
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  private invoked(inv: Invocation): void {
    if (inv.op === "multi") {
      for (const sub of inv.args.ops ?? []) this.multiPaths.add(serverPathOf(inv, sub.path));
      return;
    }
    const path = serverPathOf(inv, inv.path);
    if (inv.op === "delete") this.deletable.add(path);
    if (inv.op !== "getData" && inv.op !== "exists") return;
    const floor = this.confirmed.get(path);
    if (floor !== undefined) this.floors.set(opName(inv), floor);
  }

  private completed(inv: Invocation, done: Completion): void {
    const path = serverPathOf(inv, inv.path);
    if ((inv.op === "create" || inv.op === "setData" || inv.op === "delete") && done.outcome === "ok" && done.zxid !== undefined) {
      const written = inv.op === "create" && done.result?.path !== undefined ? serverPathOf(inv, done.result.path, true) : path;
      const last = this.confirmed.get(written);
      if (last === undefined || last.zxid < done.zxid) this.confirmed.set(written, { op: inv.op, zxid: done.zxid, by: opName(inv), atMs: done.atUs / 1000 });
      return;
    }
    const floor = this.floors.get(opName(inv));
    this.floors.delete(opName(inv));
    if (floor === undefined || this.multiPaths.has(path) || done.outcome === "unknown" || done.local) return;
    const absent = done.err === "NONODE" || (done.outcome === "ok" && (done.result?.stat ?? null) === null);
    if (done.outcome === "fail" && !absent) return;
    const stat = done.result?.stat ?? undefined;
    const seen = absent ? "no node" : `mzxid ${stat?.mzxid ?? "?"}`;
    const stale =
      floor.op === "delete"
        ? !absent && stat?.czxid !== undefined && BigInt(stat.czxid) < floor.zxid
        : absent
          ? !this.deletable.has(path)
          : stat?.mzxid !== undefined && BigInt(stat.mzxid) < floor.zxid;
    if (!stale) return;
    this.log.add(
      { index: done.eventIndex, atUs: done.atUs },
      `${opName(inv)} ${inv.op}(${path}) invoked at ${inv.atUs / 1000} ms saw ${seen}, older than ${floor.by}'s ${floor.op} (zxid ${hex(floor.zxid)}) confirmed at ${floor.atMs} ms: a stale read — sync(path) before a read that must see writes confirmed elsewhere`,
    );
  }
}
