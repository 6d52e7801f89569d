/**
 * zab.sync-packet: the leader sends a learner the synchronisation it chose for it. 3.8's
 * `LearnerHandler.syncFollower` decides DIFF, TRUNC or SNAP (docs/zookeeper.md §7.4: a DIFF or
 * TRUNC when the learner's last zxid is within the leader's committed or on-disk log, a SNAP
 * only when it is not) and queues exactly that packet first; the leader announces the choice as
 * `zab.sync` (mode, the learner's last zxid) just before. A leader that ships a SNAP where it
 * chose a DIFF sends its whole tree to a learner that lacks a few txns (the sync cost of a
 * snapshot, and a learner that drops its own tree), and a DIFF or TRUNC where it chose a SNAP
 * leaves the learner's tree diverged.
 *
 * Read from the trace, per (leader node, learner node): the mode of the leader's last `zab.sync`
 * for that learner; the leader's next `send` of a sync packet (DIFF, TRUNC or SNAP) to that
 * learner must carry that mode, and a sync packet with no announcement before it is unexplained.
 * The announcement and the packet are made in one step of the leader (no event of another node
 * comes between); a handler whose connection is gone sends nothing, and the learner's next
 * handler announces again. State: one pending mode per learner of a leader, dropped at the
 * leader's crash. O(1) per event.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { KindsOf } from "../checker.js";
import { oneOfField, peerOf } from "../event-reader.js";
import { syncParties, ZabEventChecker } from "./zab-event.js";

const MODES = ["DIFF", "TRUNC", "SNAP"] as const;
type Mode = (typeof MODES)[number];
const SYNC_PACKETS: ReadonlySet<string> = new Set(MODES);

const KINDS = ["zab.sync", "send", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

export class SyncPacketChecker extends ZabEventChecker<Kind> {
  /** Leader node → learner node → the mode announced and not yet sent. */
  private readonly pending = new Map<string, Map<string, Mode>>();
  /** Of the messages, the sync packets a leader sends. */
  readonly messageTypes = { send: MODES };

  constructor() {
    super("zab.sync-packet", KINDS);
  }

  protected dispatch(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.sync":
        return this.onSync(e);
      case "send":
        if (e.detail !== undefined && SYNC_PACKETS.has(e.detail)) this.onSyncPacket(e);
        return;
      case "crash":
        this.pending.delete(e.node);
        return;
    }
  }

  private onSync(e: TraceEvent<"zab.sync">): void {
    const mode = oneOfField(e, "mode", MODES);
    const { leader, learner } = syncParties(e, this.names);
    // Announced by the learner, or for a learner not yet named: nothing to tie to a packet.
    if (leader !== e.node || learner === undefined) return;
    let byLearner = this.pending.get(leader);
    if (byLearner === undefined) this.pending.set(leader, (byLearner = new Map()));
    byLearner.set(learner, mode);
  }

  private onSyncPacket(e: TraceEvent<"send">): void {
    const learner = peerOf(e);
    const byLearner = this.pending.get(e.node);
    const mode = byLearner?.get(learner);
    byLearner?.delete(learner);
    if (mode === undefined) {
      // A learner the names do not know yet cannot have been announced: judged only when known.
      if (this.names.node(learner) !== undefined) this.log.add(e, `${this.names.label(e.node)} sends ${this.names.label(learner)} a ${e.detail} it never announced (zab.sync): syncFollower sends the sync it chose, once`);
      return;
    }
    if (e.detail !== mode) this.log.add(e, `${this.names.label(e.node)} chose ${mode} for ${this.names.label(learner)} (zab.sync) but sends ${e.detail}: syncFollower sends the packet it chose (a SNAP only when the learner's zxid is outside its logs)`);
  }
}
