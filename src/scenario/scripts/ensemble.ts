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

  /** Waits until one leader serves and every running server serves too. */
  async settled(timeoutMs: number, what = "the ensemble settles with one serving leader"): Promise<string | undefined> {
    const ok = await this.s.waitFor(
      () => this.leader() !== undefined && this.s.servers.every((id) => this.sim.node(id).status !== "up" || this.peer(id)?.serving === true),
      timeoutMs,
      what,
    );
    return ok ? this.leader() : undefined;
  }
}
