/**
 * A read-only view of an ensemble for scenario scripts (drivers, not checkers): who leads, who
 * serves, and waits for the ensemble to settle. Checkers never use it; they read the trace.
 */
import type { Simulator } from "../../sim/simulator.js";
import { QuorumPeer } from "../../zk/server/quorum/quorum-peer.js";
import type { ScriptContext } from "./script.js";

export class EnsembleView {
  constructor(
    private readonly sim: Simulator,
    private readonly s: ScriptContext,
  ) {}

  peer(id: string): QuorumPeer | undefined {
    const p = this.sim.node(id).process;
    return p instanceof QuorumPeer ? p : undefined;
  }

  /** The server that leads and serves, if exactly one does. */
  leader(): string | undefined {
    const leaders = this.s.servers.filter((id) => {
      const p = this.peer(id);
      return p !== undefined && p.state === "LEADING" && p.serving;
    });
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  followersOf(leader: string): string[] {
    return this.s.servers.filter((id) => id !== leader && this.peer(id)?.qv.isVoter(this.peer(id)!.myid));
  }

  /**
   * Waits until one leader serves and every running server serves too. With `excuseEpochAhead`,
   * a running server whose acceptedEpoch is above the serving leader's epoch is excused:
   * ZooKeeper 3.8 refuses it until the leader changes (Learner.registerWithLeader), so what
   * ZooKeeper promises after a heal is a serving quorum, not every server (docs/bug-power.md).
   */
  async settled(timeoutMs: number, what = "the ensemble settles with one serving leader", excuseEpochAhead = false): Promise<string | undefined> {
    const ok = await this.s.waitFor(
      () => {
        const leader = this.leader();
        return leader !== undefined && this.s.servers.every((id) => this.sim.node(id).status !== "up" || this.peer(id)?.serving === true || (excuseEpochAhead && this.epochAhead(id, leader)));
      },
      timeoutMs,
      what,
    );
    return ok ? this.leader() : undefined;
  }

  /** Running servers refused by the serving `leader` because their acceptedEpoch is above its epoch. */
  epochAheadOf(leader: string): string[] {
    return this.s.servers.filter((id) => this.sim.node(id).status === "up" && this.peer(id)?.serving !== true && this.epochAhead(id, leader));
  }

  private epochAhead(id: string, leader: string): boolean {
    const p = this.peer(id);
    const l = this.peer(leader);
    return p !== undefined && l !== undefined && p.acceptedEpoch > l.currentEpoch;
  }
}
