/**
 * Identical data trees at identical applied zxids: two servers that have applied exactly the
 * same committed prefix, up to the same zxid, hold the same data tree. The servers sample the
 * tree's digest right after applying a txn (`zab.digest {zxid, digest}`); two different digests
 * for the same zxid mean the replicas diverged (ZOOKEEPER-2355, 3104: a sync that skipped or
 * double-applied txns), even when every zxid-level invariant still holds.
 *
 * Bounded state: digests are sampled at deliveries, so once every server has delivered a zxid
 * and made it durable (the durable floor of durable-floor.ts) every digest of it has been
 * compared: the digests at or below the floor are forgotten, and one that comes again there
 * (only after a server lost durable txns) is not compared.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import type { Zxid } from "../../zk/proto/records.js";
import { at, formatZxid, serverLabel } from "./zab-event.js";
import { FLOOR_KINDS, FloorPruner, isFloorEvent } from "./durable-floor.js";
import type { RunServices } from "../check-run.js";
import { guarded, stringField, zxidField } from "../event-reader.js";

interface FirstDigest {
  digest: string;
  label: string;
  event: TraceEvent;
}

const KINDS = ["zab.digest", ...FLOOR_KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class IdenticalTreesChecker implements Checker<Kind> {
  readonly name = "zab.identical-trees";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly first = new Map<Zxid, FirstDigest>();
  private readonly reported = new Set<string>();
  private readonly pruner = new FloorPruner((floorZxid) => {
    for (const zxid of this.first.keys()) if (zxid <= floorZxid) this.first.delete(zxid);
  });

  /** The run's durable floor, whose events the run hands the pruner: the checker then reads only digests. */
  attach(run: RunServices): void {
    this.pruner.follow(run, this.log);
  }

  attachedKinds(): readonly Kind[] {
    return ["zab.digest"];
  }

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "zab.digest") this.onDigest(e, zxidField(e, "zxid"), stringField(e, "digest"));
    else if (isFloorEvent(e)) this.pruner.observe(e);
  }

  private onDigest(e: TraceEvent, zxid: Zxid, digest: string): void {
    if (zxid <= this.pruner.prunedThrough) return;
    const first = this.first.get(zxid);
    if (first === undefined) {
      this.first.set(zxid, { digest, label: serverLabel(e), event: e });
      return;
    }
    if (first.digest === digest) return;
    const key = `${zxid}:${digest}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.add(
      e,
      `IdenticalTrees violated: at applied zxid ${formatZxid(zxid)} ${serverLabel(e)} has tree digest ${digest} but ${first.label} had ${first.digest} ` +
        `(${at(first.event)}); replicas that applied the same committed prefix must hold the same tree`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
