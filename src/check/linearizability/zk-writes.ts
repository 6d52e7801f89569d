/**
 * The reference model's writes, each in the order Java's `PrepRequestProcessor` validates it
 * (docs/zookeeper.md §1.4: the first failing check names the error), and its effect on the tree
 * (§1.6: which Stat fields of the node and of its parent move). Shared by single ops and the
 * sub-ops of a multi, which run against a `Draft` holding the earlier sub-ops' effects.
 *
 * - create: TTL mode without extended types → UNIMPLEMENTED; ACL fix-up → INVALIDACL; parent
 *   missing → NONODE; CREATE on the parent → NOAUTH; the sequence suffix (the parent's stored
 *   cversion); → NODEEXISTS; an ephemeral parent → NOCHILDRENFOREPHEMERALS (after NODEEXISTS).
 *   The parent's stored cversion +1, pzxid = the zxid; the node's czxid = mzxid = pzxid = zxid.
 * - delete: a special path (`/`, `/zookeeper`, `/zookeeper/quota`, `/zookeeper/config`) →
 *   BADARGUMENTS; parent missing → NONODE; DELETE on the parent → NOAUTH; node missing → NONODE;
 *   version → BADVERSION; children → NOTEMPTY. The parent's pzxid = the zxid (cversion unchanged).
 * - setData: NONODE, WRITE → NOAUTH, version → BADVERSION; data, version +1, mzxid, mtime.
 * - setACL: fix-up → INVALIDACL (before the lookup), NONODE, ADMIN → NOAUTH, aversion →
 *   BADVERSION; the ACL and aversion +1, nothing else.
 * - check (multi only): NONODE, READ → NOAUTH, version → BADVERSION.
 * - reap (the ContainerManager's deleteContainer): NONODE, NOTEMPTY, an ordinary ephemeral →
 *   BADVERSION; and it must have been due when the manager chose it (a container that has had a
 *   child; a TTL node whose mtime is older than its ttl by the manager's clock), when the node is
 *   the one it chose (same czxid; a node re-created meanwhile is deleted all the same, as Java's
 *   prep checks nothing more).
 *
 * Versions wrap as Java ints. A zxid or time the model does not know stays undefined.
 */
import type { CodeName } from "../../zk/proto/error-code.js";
import { ADMIN, CREATE, DELETE, READ, WRITE, decide, fixupAcl, type Identities, type ServerFacts } from "./zk-acl.js";
import { Draft, OPEN_ACL, STALE_ACLS, baseName, insertSorted, newNode, parentOf, sequenceSuffix, type NodeKind, type ZNode } from "./zk-tree.js";

export type WriteOutcome = { err: CodeName } | { err?: undefined; path: string };

/** Who runs a write, and what the model knows of it. */
export interface Caller {
  session: string;
  ids: Identities;
  /** The txn's zxid (the reply's), when known. */
  zxid: bigint | undefined;
  facts: ServerFacts;
  /**
   * The code the op (or this sub-op) was answered with, when it failed: it settles a check whose
   * outcome the model cannot know (an ACL decision resting on an unknown, extended types).
   */
  answered: string | undefined;
  /** When the op was invoked (which replaced ACLs may still have been in effect for it). */
  invokeUs: number;
  /** When the op completed (∞ when it did not): what a setACL records for the ACL it replaces. */
  completeUs: number;
}

/** A check the model answers "maybe" passes unless the op was answered with its code. */
function passes(decision: "yes" | "no" | "maybe", caller: Caller, code: CodeName): boolean {
  return decision === "yes" || (decision === "maybe" && caller.answered !== code);
}

/**
 * `perm` on `node` for `caller`: by its ACL, or by one a setACL replaced but that may still have
 * been in effect when the leader prepared the op (invoked before that setACL completed): Java's
 * prep checks against its pending change records, and a setACL's record keeps the old ACL
 * (`PrepRequestProcessor`: `nodeRecord.duplicate(zxid)`, aversion +1, the ACL untouched) until
 * the txn is applied. Every ACL that may apply agreeing: that answer; otherwise "maybe".
 */
function permits(node: ZNode, perm: number, caller: Caller): "yes" | "no" | "maybe" {
  let d = decide(node.acl, perm, caller.ids);
  // Indexed loops here and in the model's other per-step code: a for-of made an iterator (and a
  // result per element) each time while the code is not optimised yet, a cold check's first
  // thousands of steps.
  for (let k = 0; k < node.staleAcls.length; k++) {
    const s = node.staleAcls[k]!;
    if (s.untilUs <= caller.invokeUs || d === "maybe") continue;
    if (decide(s.acl, perm, caller.ids) !== d) d = "maybe";
  }
  return d;
}

/** No ACL asked for: OPEN_ACL_UNSAFE (one list for every such write). */
const OPEN_ACL_LIST: readonly string[] = [OPEN_ACL];

const SPECIAL_PATHS: ReadonlySet<string> = new Set(["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]);

export interface CreateArgs {
  path: string;
  data: string;
  mode: string;
  acl: readonly string[] | undefined;
  ttl: number | undefined;
}

const MAX_TTL_MS = 2 ** 40 - 1;

export function create(d: Draft, caller: Caller, a: CreateArgs): WriteOutcome {
  const ttlMode = a.mode.includes("TTL");
  if (ttlMode) {
    const ext = caller.facts.extendedTypes;
    if (ext === false || (ext === undefined && caller.answered === "UNIMPLEMENTED")) return { err: "UNIMPLEMENTED" };
    if (a.ttl === undefined || a.ttl <= 0 || a.ttl > MAX_TTL_MS) return { err: "BADARGUMENTS" };
  } else if (a.ttl !== undefined && a.ttl >= 0) return { err: "BADARGUMENTS" };
  if (!a.path.startsWith("/")) return { err: "BADARGUMENTS" };
  const acl = fixupAcl(a.acl ?? OPEN_ACL_LIST, caller.ids);
  if (acl === "INVALIDACL" || (acl === undefined && caller.answered === "INVALIDACL")) return { err: "INVALIDACL" };
  const parentPath = parentOf(a.path);
  const parent = d.get(parentPath);
  if (parent === undefined) return { err: "NONODE" };
  if (!passes(permits(parent, CREATE, caller), caller, "NOAUTH")) return { err: "NOAUTH" };
  const name = a.mode.includes("SEQUENTIAL") ? a.path + sequenceSuffix(parent.cversion) : a.path;
  if (d.get(name) !== undefined) return { err: "NODEEXISTS" };
  if (parent.kind === "ephemeral") return { err: "NOCHILDRENFOREPHEMERALS" };
  const kind: NodeKind = a.mode.startsWith("EPHEMERAL") ? "ephemeral" : a.mode === "CONTAINER" ? "container" : ttlMode ? "ttl" : "persistent";
  const z = caller.zxid;
  d.set(parentPath, { ...parent, cversion: (parent.cversion + 1) | 0, pzxid: z, children: insertSorted(parent.children, baseName(name)) });
  d.set(name, newNode(a.data, kind, kind === "ephemeral" ? caller.session : undefined, kind === "ttl" ? a.ttl! : 0, acl, z));
  return { path: name };
}

export function remove(d: Draft, caller: Caller, path: string, version: number): WriteOutcome {
  if (SPECIAL_PATHS.has(path) || !path.startsWith("/")) return { err: "BADARGUMENTS" };
  const parentPath = parentOf(path);
  const parent = d.get(parentPath);
  if (parent === undefined) return { err: "NONODE" };
  if (!passes(permits(parent, DELETE, caller), caller, "NOAUTH")) return { err: "NOAUTH" };
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  if (node.children.length > 0) return { err: "NOTEMPTY" };
  unlink(d, path, caller.zxid);
  return { path };
}

/** Deletes the (childless) node at `path` and updates its parent, as a delete txn at `zxid` does. */
export function unlink(d: Draft, path: string, zxid: bigint | undefined): void {
  const parentPath = parentOf(path);
  const parent = d.get(parentPath)!;
  const name = baseName(path);
  // pzxid only moves up (DataTree.deleteNode); an unknown zxid leaves it unknown.
  const pzxid = zxid === undefined || parent.pzxid === undefined ? undefined : zxid > parent.pzxid ? zxid : parent.pzxid;
  d.set(parentPath, { ...parent, pzxid, children: parent.children.filter((c) => c !== name) });
  d.remove(path);
}

export function setData(d: Draft, caller: Caller, path: string, data: string, version: number): WriteOutcome {
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (!passes(permits(node, WRITE, caller), caller, "NOAUTH")) return { err: "NOAUTH" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  d.set(path, { ...node, data, version: (node.version + 1) | 0, mzxid: caller.zxid, mtime: undefined, fresh: false, opaque: false });
  return { path };
}

export function setAcl(d: Draft, caller: Caller, path: string, requested: readonly string[] | undefined, aversion: number): WriteOutcome {
  const acl = fixupAcl(requested ?? OPEN_ACL_LIST, caller.ids);
  if (acl === "INVALIDACL" || (acl === undefined && caller.answered === "INVALIDACL")) return { err: "INVALIDACL" };
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (!passes(permits(node, ADMIN, caller), caller, "NOAUTH")) return { err: "NOAUTH" };
  if (aversion !== -1 && aversion !== node.aversion) return { err: "BADVERSION" };
  const staleAcls = [{ acl: node.acl, untilUs: caller.completeUs }, ...node.staleAcls].slice(0, STALE_ACLS);
  d.set(path, { ...node, acl, staleAcls, aversion: (node.aversion + 1) | 0 });
  return { path };
}

export function check(d: Draft, caller: Caller, path: string, version: number): WriteOutcome {
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (!passes(permits(node, READ, caller), caller, "NOAUTH")) return { err: "NOAUTH" };
  if (version !== -1 && version !== node.version) return { err: "BADVERSION" };
  return { path };
}

/**
 * The ContainerManager's deleteContainer of `path`, chosen as the node with `czxid` at clock
 * `nowMs`, from the tree its server had applied up to `seenZxid`. The choice reads the applied
 * tree, and PrepRequestProcessor's deleteContainer checks only children and type, not the TTL
 * again: a setData applied between the choice and the delete does not save a TTL node.
 */
export function reap(d: Draft, path: string, czxid: bigint | undefined, nowMs: number | undefined, seenZxid?: bigint): WriteOutcome {
  if (SPECIAL_PATHS.has(path)) return { err: "BADARGUMENTS" };
  const node = d.get(path);
  if (node === undefined) return { err: "NONODE" };
  if (node.children.length > 0) return { err: "NOTEMPTY" };
  if (node.kind === "ephemeral") return { err: "BADVERSION" };
  if (czxid !== undefined && node.czxid === czxid && !wasDue(node, nowMs, seenZxid)) return { err: "SYSTEMERROR" };
  unlink(d, path, undefined);
  return { path };
}

/** Whether the node the manager chose was due by its rules (ContainerManager.getCandidates). */
function wasDue(node: ZNode, nowMs: number | undefined, seenZxid: bigint | undefined): boolean {
  switch (node.kind) {
    case "container":
      return node.cversion > 0;
    case "ttl": {
      // Modified after the choice: the manager judged an older mtime, which the model does not hold.
      if (seenZxid !== undefined && node.mzxid !== undefined && node.mzxid > seenZxid) return true;
      const mtime = node.fresh ? node.ctime : node.mtime;
      return mtime === undefined || nowMs === undefined || nowMs - mtime > node.ttlMs || mtime > nowMs;
    }
    case "persistent":
    case "ephemeral":
      return false;
  }
}
