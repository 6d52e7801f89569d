/**
 * The static quorum configuration and its majority rule (`QuorumMaj` in ZooKeeper 3.8).
 *
 * A configuration lists every server of the ensemble with its sid, the simulated node it runs
 * on, and its learner type: participants vote (in leader election and on proposals), observers
 * only learn. A set of sids is a quorum when it holds more than half of the *voting* members.
 *
 * Invariants: sids are unique non-negative integers; at least one participant exists; any two
 * quorums of the same configuration intersect in a voter.
 *
 * Dynamic reconfiguration (3.5+): a configuration carries its `version`, the zxid of the reconfig
 * txn that made it (0 for the static one), printed in hex as 3.8 does; `quorum-server-spec.ts`
 * parses the `server.N=…` text back. Departures from 3.8 (none observable by election):
 * QuorumHierarchical weights and groups and the 2-node oracle are not modelled.
 * `QuorumMaj.getWeight` is 1 for every sid in Java; here a non-voter weighs 0, which is what
 * docs/zookeeper.md §7.1 states and is equivalent there because FastLeaderElection already
 * ignores notifications whose proposed leader is not a voter (`validVoter(n.leader)`).
 */
import { UserInputError } from "../../../base/errors.js";

export type LearnerType = "participant" | "observer";

export interface QuorumServer {
  /** The server id (`myid`). */
  sid: number;
  /** The simulated node the server runs on (ZooKeeper's hostname). */
  host: string;
  role: LearnerType;
  /** The client address after `;` in the server spec (`0.0.0.0:2181`), when the config gives one. */
  clientAddress?: string;
  /**
   * `host:quorumPort:electionPort` as the config text gives it, when that is a real address
   * (`zksim serve`: "real" addressing, quorum-server-spec.ts); absent, the text names the
   * simulated node with ZooKeeper's default ports (`s1:2888:3888`).
   */
  address?: string;
}

export class QuorumVerifier {
  readonly allMembers: ReadonlyMap<number, QuorumServer>;
  readonly votingMembers: ReadonlyMap<number, QuorumServer>;
  readonly observingMembers: ReadonlyMap<number, QuorumServer>;
  /** `votingMembers.size / 2`, rounded down: a quorum has strictly more voters than this. */
  readonly half: number;
  /** `toString`'s text, made at its first call. */
  private text: string | undefined = undefined;

  constructor(
    servers: readonly QuorumServer[],
    /** The zxid of the reconfig that made this configuration; 0 for the static one. */
    readonly version: bigint = 0n,
  ) {
    const all = new Map<number, QuorumServer>();
    const voting = new Map<number, QuorumServer>();
    const observing = new Map<number, QuorumServer>();
    // Sorted by sid so that every iteration over members is in a total, deterministic order.
    for (const s of [...servers].sort((a, b) => a.sid - b.sid)) {
      if (!Number.isSafeInteger(s.sid) || s.sid < 0) throw new UserInputError(`QuorumVerifier: sid must be an integer ≥ 0, got ${String(s.sid)}`);
      if (all.has(s.sid)) throw new UserInputError(`QuorumVerifier: duplicate sid ${s.sid}`);
      if (s.role !== "participant" && s.role !== "observer") throw new UserInputError(`QuorumVerifier: server.${s.sid} has unknown role "${String(s.role)}"`);
      const copy: QuorumServer = { sid: s.sid, host: s.host, role: s.role, ...(s.clientAddress !== undefined ? { clientAddress: s.clientAddress } : {}), ...(s.address !== undefined ? { address: s.address } : {}) };
      all.set(s.sid, copy);
      (s.role === "participant" ? voting : observing).set(s.sid, copy);
    }
    if (voting.size === 0) throw new UserInputError("QuorumVerifier: the configuration has no participant");
    this.allMembers = all;
    this.votingMembers = voting;
    this.observingMembers = observing;
    this.half = Math.floor(voting.size / 2);
  }

  /** True when `sid` is a voting member (FastLeaderElection's `validVoter`). */
  isVoter(sid: number): boolean {
    return this.votingMembers.has(sid);
  }

  /** 1 for a voter, 0 for anybody else (see the header for how this relates to Java). */
  getWeight(sid: number): number {
    return this.votingMembers.has(sid) ? 1 : 0;
  }

  /**
   * True when the voters in `sids` are a majority of the voting members. Non-voters in the set
   * are not counted (Java's `SyncedLearnerTracker.addAck` filters them before `containsQuorum`).
   */
  containsQuorum(sids: ReadonlySet<number>): boolean {
    let voters = 0;
    for (const sid of sids) if (this.votingMembers.has(sid)) voters++;
    return voters > this.half;
  }

  /** The sid running on `host`, if any. */
  sidOfHost(host: string): number | undefined {
    for (const s of this.allMembers.values()) if (s.host === host) return s.sid;
    return undefined;
  }

  /** The config text as 3.8 prints it (`server.N=host:2888:3888:role[;client]`, then `version=<hex>`). */
  toString(): string {
    // Memoised: a verifier never changes, and every peer start and sync writes it into
    // /zookeeper/config (and compares it with what is there).
    if (this.text === undefined) {
      const lines = [...this.allMembers.values()].map((s) => `server.${s.sid}=${serverSpec(s)}`);
      lines.push(`version=${this.version.toString(16)}`);
      this.text = lines.join("\n");
    }
    return this.text;
  }

  /** The same members with another version (`QuorumVerifier.setVersion`). */
  withVersion(version: bigint): QuorumVerifier {
    return new QuorumVerifier([...this.allMembers.values()], version);
  }

  /** Same members, roles and addresses (the version aside). */
  sameMembers(other: QuorumVerifier): boolean {
    if (other.allMembers.size !== this.allMembers.size) return false;
    for (const [sid, s] of this.allMembers) {
      const o = other.allMembers.get(sid);
      if (o === undefined || serverSpec(o) !== serverSpec(s)) return false;
    }
    return true;
  }
}

/** `host:2888:3888:role` (or the member's real address) plus `;client` when the member has a client address. */
export function serverSpec(s: QuorumServer): string {
  const base = `${s.address ?? `${s.host}:2888:3888`}:${s.role}`;
  return s.clientAddress === undefined ? base : `${base};${s.clientAddress}`;
}
