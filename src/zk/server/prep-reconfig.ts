/**
 * The reconfig step of `PrepRequestProcessor` (3.5+ dynamic reconfiguration, docs/zookeeper.md
 * §7.10): from a `ReconfigRequest` and the leader's view, the next configuration or the error code
 * 3.8 answers, checked in 3.8's order — reconfig disabled, session, standalone (UNIMPLEMENTED),
 * a reconfig still in progress (the last proposed config is not yet the committed one), the
 * `fromConfig` version, the new members (incremental joining/leaving or a whole new config), too
 * few voters, and a quorum of the new config connected and synced with the leader. The ACL gate
 * (WRITE on /zookeeper/config, whose ACL grants only READ: only `super` or skipACL pass) is the
 * caller's, as it reads the pending record of that node.
 */
import { Code } from "../proto/error-code.js";
import type { ReconfigRequest } from "../proto/packets.js";
import type { Zxid } from "../proto/records.js";
import { QuorumVerifier, type QuorumServer } from "./quorum/quorum-verifier.js";
import { parseConfigText, parseServerEntry, type ServerAddressing } from "./quorum/quorum-server-spec.js";

/** What prep needs of the leader to decide a reconfig. */
export interface ReconfigHost {
  /** `QuorumPeer.getQuorumVerifier()`: the committed configuration. */
  quorumVerifier(): QuorumVerifier;
  /** `getLastSeenQuorumVerifier()`: the last one proposed (the committed one when none is pending). */
  lastSeenQuorumVerifier(): QuorumVerifier;
  /** `Leader.isQuorumSynced(qv)`: the voters of `qv` connected and synced with the leader form a quorum of it. */
  isQuorumSynced(qv: QuorumVerifier): boolean;
  /** `standaloneEnabled` (3.8 default true): then a new config needs at least 2 voters. */
  standaloneEnabled: boolean;
  /** How config text names servers (quorum-server-spec.ts). */
  addressing: ServerAddressing;
}

export type NextConfig = { ok: true; qv: QuorumVerifier } | { ok: false; err: number };

const refuse = (err: number): NextConfig => ({ ok: false, err });

/** The checks that come before the session's: only whether reconfig is enabled at all. */
export function nextQuorumVerifier(record: ReconfigRequest, host: ReconfigHost | undefined, zxid: Zxid): NextConfig {
  if (host === undefined) return refuse(Code.UNIMPLEMENTED);
  const lastSeen = host.lastSeenQuorumVerifier();
  if (lastSeen.version !== host.quorumVerifier().version) return refuse(Code.RECONFIGINPROGRESS);
  if (record.curConfigId !== -1n && record.curConfigId !== lastSeen.version) return refuse(Code.BADVERSION);
  const next = record.newMembers !== null ? nonIncremental(record.newMembers, zxid, host.addressing) : incremental(record, lastSeen, zxid, host.addressing);
  if (!next.ok) return next;
  const voters = next.qv.votingMembers.size;
  if (host.standaloneEnabled ? voters < 2 : voters < 1) return refuse(Code.BADARGUMENTS);
  if (!host.isQuorumSynced(next.qv)) return refuse(Code.NEWCONFIGNOQUORUM);
  return next;
}

/** The whole new membership; its version is the reconfig's zxid whatever the text says. */
function nonIncremental(newMembers: string, zxid: Zxid, addressing: ServerAddressing): NextConfig {
  const parsed = parseConfigText(newMembers, zxid, addressing);
  return parsed.ok ? { ok: true, qv: parsed.value.withVersion(zxid) } : refuse(Code.BADARGUMENTS);
}

/** Leaving sids removed, then each joiner (`server.N=spec` with its client port) put in, replacing any same sid. */
function incremental(record: ReconfigRequest, lastSeen: QuorumVerifier, zxid: Zxid, addressing: ServerAddressing): NextConfig {
  const next = new Map<number, QuorumServer>(lastSeen.allMembers);
  for (const leaving of splitList(record.leavingServers)) {
    if (!/^-?\d{1,18}$/.test(leaving)) return refuse(Code.BADARGUMENTS);
    next.delete(Number(leaving));
  }
  for (const joiner of splitList(record.joiningServers)) {
    const s = parseServerEntry(joiner, true, addressing);
    if (!s.ok) return refuse(Code.BADARGUMENTS);
    next.delete(s.value.sid);
    next.set(s.value.sid, s.value);
  }
  const servers = [...next.values()];
  if (!servers.some((s) => s.role === "participant")) return refuse(Code.BADARGUMENTS);
  return { ok: true, qv: new QuorumVerifier(servers, zxid) };
}

/** `StringUtils.split(s, ",")`: trimmed, empty pieces dropped. */
function splitList(text: string | null): string[] {
  if (text === null) return [];
  return text.split(",").map((p) => p.trim()).filter((p) => p !== "");
}
