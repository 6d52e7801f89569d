/**
 * zk.session-txns: a session's closeSession is its last txn (docs/zookeeper.md §3.3–3.4).
 *
 * When the leader (or a standalone server) preps a session's closeSession — the client's close
 * or the expirer's — it marks the session closing, and from then on every request of that
 * session fails its session check (SESSIONEXPIRED) or is dropped; once the close is applied the
 * session is unknown. So in the committed history no txn of a session that changes the tree
 * follows its closeSession: a request that slipped past the check would act for a session that
 * has ended (ZOOKEEPER-1208: an ephemeral created that way outlives its session for ever).
 *
 * Read from `zk.apply` alone (each server's apply of a committed txn: zxid, op, session, err):
 * once a serving server applied S's closeSession at zxid C (standalone, or a quorum server in
 * BROADCAST — a learner applying a DIFF during its sync may apply txns of an epoch that is later
 * discarded), an apply by a serving server of a txn of S at a zxid above C that succeeded (no
 * `err`) and is not a session txn (createSession, closeSession: a second close of a closing
 * session is harmless) is a violation. Failed txns (error txns, a multi with a failed op) change
 * nothing and are allowed; they are how a request of a closing session ends.
 *
 * State: one zxid per closed session (bounded by the sessions of the run) and the phase of each
 * server.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, optionalStringField, stringField, zxidField } from "../event-reader.js";

/** Txns that change no node: the session txns, and the error txn a failed request becomes. */
const NO_TREE_CHANGE: ReadonlySet<string> = new Set(["createSession", "closeSession", "error"]);

const KINDS = ["zk.apply", "zab.phase"] as const;
type Kind = KindsOf<typeof KINDS>;

export class SessionTxnsChecker implements Checker<Kind> {
  readonly name = "zk.session-txns";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Session (hex) → zxid of its closeSession as first applied by a serving server. */
  private readonly closedAt = new Map<string, bigint>();
  /** Sessions already reported (one violation per session). */
  private readonly reported = new Set<string>();
  /** Quorum servers not in BROADCAST (a server with no phase yet is standalone: serving). */
  private readonly notServing = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "zab.phase") {
      if (stringField(e, "phase") === "BROADCAST") this.notServing.delete(e.node);
      else this.notServing.add(e.node);
      return;
    }
    if (this.notServing.has(e.node) || optionalStringField(e, "err") !== undefined) return;
    const session = stringField(e, "session");
    const op = stringField(e, "op");
    const zxid = zxidField(e, "zxid");
    if (op === "closeSession") {
      const known = this.closedAt.get(session);
      if (known === undefined || zxid < known) this.closedAt.set(session, zxid);
      return;
    }
    const closed = this.closedAt.get(session);
    if (closed === undefined || zxid <= closed || NO_TREE_CHANGE.has(op) || this.reported.has(session)) return;
    this.reported.add(session);
    this.log.add(e, `${e.node} applied ${op} 0x${zxid.toString(16)} of session ${session} after the session's closeSession 0x${closed.toString(16)}: a request of a closing session took effect`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  retained(): number {
    return this.closedAt.size;
  }
}
