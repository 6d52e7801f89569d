/**
 * The reference model's reads (docs/zookeeper.md §1.4–1.7, §5.4): what each one must answer in a
 * given tree, and what a Stat must show of a node.
 *
 * - getData, getChildren(2), getAllChildrenNumber: NONODE, then READ → NOAUTH; exists checks no
 *   ACL (3.8.0); getACL needs READ or ADMIN, and without ADMIN shows digest ids as `user:x`.
 * - getEphemerals(prefix): the session's ephemerals whose path starts with the prefix, every one
 *   for "/" (the prefix as the client sent it: Java's client does not add its chroot).
 * - getAllChildrenNumber: every descendant; for "/" every node but the root.
 * - whoAmI: the connection's identities, `scheme:user` (digest ids by their user name).
 * - multiRead: each getData / getChildren on its own, an error result where one fails.
 * - Children and identity lists compare as sets (Java gives hash orders clients must not rely on).
 *
 * A Stat shows version, cversion (2·stored − numChildren), aversion, numChildren, dataLength and
 * ephemeralOwner (the session of an ordinary ephemeral, 0 for every other kind) exactly. Its zxids
 * and times are compared when the model knows them, and learned when it does not (`matchStat`
 * returns the node with them filled in): an indeterminate write's zxid, the leader's clock. A node
 * never written since its create shows mtime = ctime.
 */
import type { OpResult, StatFields, SubResult } from "../history/history.js";
import { parseZxidText } from "../zxid-text.js";
import { ADMIN, READ, decide, entriesOf, maskedAcl, parseAclEntry, whoAmI, type Identities } from "./zk-acl.js";
import { utf8Length, type ZkTree, type ZNode } from "./zk-tree.js";

/** What a read makes of the tree: the same tree (or one with learned fields), or why it cannot. */
export type ReadVerdict = { ok: true; learned?: ZNode } | { ok: false; why: string };

const OK: ReadVerdict = { ok: true };

export interface ReadOp {
  op: string;
  path: string;
  session: string;
  outcome: "ok" | "fail";
  err: string | undefined;
  result: OpResult | SubResult | undefined;
}

/** The answer `r` must be to `op` on `tree`. */
export function judgeRead(tree: ZkTree, r: ReadOp, ids: Identities): ReadVerdict {
  switch (r.op) {
    case "getEphemerals":
      return judgeEphemerals(tree, r);
    case "whoAmI":
      return judgeWhoAmI(r, ids);
    default:
      return judgeNodeRead(tree, r, ids);
  }
}

function judgeNodeRead(tree: ZkTree, r: ReadOp, ids: Identities): ReadVerdict {
  const node = tree.get(r.path);
  if (node === undefined) {
    if (r.op === "exists" && r.outcome === "ok" && (r.result?.stat === null || r.result?.stat === undefined)) return OK;
    if (r.op !== "exists" && r.outcome === "fail" && r.err === "NONODE") return OK;
    return { ok: false, why: `${r.op} ${r.path} ${answered(r)}, but ${r.path} does not exist` };
  }
  if (r.op === "exists") {
    if (r.outcome !== "ok") return { ok: false, why: `${r.op} ${r.path} failed with ${r.err}, but exists checks nothing but the node, which is there` };
    if (r.result?.stat === null) return { ok: false, why: `exists ${r.path} saw no node, but it exists` };
    return statVerdict(r, r.result?.stat ?? undefined, node);
  }
  const perm = r.op === "getACL" ? READ | ADMIN : READ;
  const decision = decide(node.acl, perm, ids);
  if (r.outcome === "fail") {
    if (r.err === "NOAUTH" && decision !== "yes") return OK;
    if (r.err === "NOAUTH") return { ok: false, why: `${r.op} ${r.path} failed with NOAUTH, but the caller may ${r.op === "getACL" ? "READ or ADMIN" : "READ"} ${r.path} (ACL ${aclText(node.acl)})` };
    return { ok: false, why: `${r.op} ${r.path} failed with ${r.err}, but ${r.path} exists${decision === "no" ? " and the caller lacks the permission: NOAUTH" : ""}` };
  }
  if (decision === "no") return { ok: false, why: `${r.op} ${r.path} succeeded, but the caller may not ${r.op === "getACL" ? "READ or ADMIN" : "READ"} ${r.path} (ACL ${aclText(node.acl)}): NOAUTH` };
  const res = r.result;
  if (res === undefined) return OK;
  const bad = contentMismatch(tree, r, node, res, ids);
  if (bad !== undefined) return { ok: false, why: `${r.op} ${r.path} ${bad}` };
  return statVerdict(r, res.stat ?? undefined, node);
}

/** What a successful read returned besides its Stat, against the node. */
function contentMismatch(tree: ZkTree, r: ReadOp, node: ZNode, res: OpResult | SubResult, ids: Identities): string | undefined {
  if (node.opaque) return undefined;
  if (r.op === "getData" && res.data !== undefined && (res.data ?? "") !== node.data) {
    return `returned ${JSON.stringify(res.data ?? "")}, but the node holds ${JSON.stringify(node.data)} (version ${node.version})`;
  }
  if (r.op === "getChildren") {
    if (res.children !== undefined && !sameSet(res.children, node.children)) return `returned [${[...res.children].sort().join(", ")}], but the children are [${node.children.join(", ")}]`;
    if ("count" in res && res.count !== undefined && res.count !== node.children.length) return `returned ${res.count} children, but there are ${node.children.length}`;
  }
  if (r.op === "getAllChildrenNumber") {
    const total = (res as OpResult).total;
    const want = descendants(tree, r.path);
    if (total !== undefined && total !== want) return `returned ${total}, but ${r.path} has ${want} descendants`;
  }
  if (r.op === "getACL") {
    const got = (res as OpResult).acl;
    if (got !== undefined && node.acl !== undefined) {
      const admin = decide(node.acl, ADMIN, ids);
      const full = entriesOf(node.acl).map(textOf);
      const masked = entriesOf(maskedAcl(node.acl)).map(textOf);
      const ok = (admin !== "no" && sameSet(got, full)) || (admin !== "yes" && sameSet(got, masked));
      if (!ok) return `returned [${got.join(", ")}], but the ACL is [${(admin === "no" ? masked : full).join(", ")}]${admin === "no" ? " (digests masked: the caller lacks ADMIN)" : ""}`;
    }
  }
  return undefined;
}

function textOf(e: { scheme: string; id: string; perms: number }): string {
  return `${e.scheme}:${e.id}:${e.perms}`;
}

function statVerdict(r: ReadOp, stat: StatFields | undefined, node: ZNode): ReadVerdict {
  if (stat === undefined) return OK;
  const m = matchStat(stat, node);
  if (typeof m === "string") return { ok: false, why: `${r.op} ${r.path}: ${m}` };
  return m === node ? OK : { ok: true, learned: m };
}

/**
 * A Stat against the node: a mismatch in words, or the node — with the zxids and times the
 * Stat showed filled in where the model did not know them.
 */
export function matchStat(stat: StatFields, node: ZNode): string | ZNode {
  if (node.opaque) return node;
  // The exact fields, in this order (the first that differs is reported); no list per Stat.
  if (stat.version !== undefined && stat.version !== node.version) return fieldMismatch("version", stat.version, node.version);
  if (stat.cversion !== undefined) {
    const want = (Math.imul(node.cversion, 2) - node.children.length) | 0;
    if (stat.cversion !== want) return fieldMismatch("cversion", stat.cversion, want);
  }
  if (stat.aversion !== undefined && stat.aversion !== node.aversion) return fieldMismatch("aversion", stat.aversion, node.aversion);
  if (stat.numChildren !== undefined && stat.numChildren !== node.children.length) return fieldMismatch("numChildren", stat.numChildren, node.children.length);
  if (stat.dataLength !== undefined) {
    const want = utf8Length(node.data);
    if (stat.dataLength !== want) return fieldMismatch("dataLength", stat.dataLength, want);
  }
  if (stat.ephemeralOwner !== undefined) {
    const got = sessionNumber(stat.ephemeralOwner);
    const want = node.kind === "ephemeral" && node.owner !== undefined ? sessionNumber(node.owner) : 0n;
    if (got !== undefined && want !== undefined && got !== want) return `Stat.ephemeralOwner was ${stat.ephemeralOwner}, but the node is ${node.kind === "ephemeral" ? `an ephemeral of ${node.owner}` : `a ${node.kind} node (owner 0)`}`;
  }
  let out = node;
  for (let f = 0; f < ZXID_FIELDS.length; f++) {
    const field = ZXID_FIELDS[f]!;
    const got = zxidOf(stat[field]);
    if (got === undefined) continue;
    const want = out[field];
    if (want === undefined) out = { ...out, [field]: got };
    else if (want !== got) return `Stat.${field} was 0x${got.toString(16)}, but ${whatZxid(field)} 0x${want.toString(16)}`;
  }
  if (out.fresh && out.czxid !== undefined && out.mzxid !== undefined && out.czxid !== out.mzxid) return `Stat.mzxid differs from czxid, but the node was never written since its create`;
  if (stat.mtime !== undefined && stat.ctime !== undefined && out.fresh && stat.mtime !== stat.ctime) return `Stat.mtime ${stat.mtime} differs from ctime ${stat.ctime}, but the node was never written since its create`;
  for (let f = 0; f < TIME_FIELDS.length; f++) {
    const field = TIME_FIELDS[f]!;
    const got = stat[field];
    if (got === undefined) continue;
    const want = field === "mtime" && out.fresh ? out.ctime : out[field];
    if (want === undefined) out = field === "mtime" && out.fresh ? { ...out, ctime: got, mtime: got } : { ...out, [field]: got };
    else if (want !== got) return `Stat.${field} was ${got}, but an earlier answer showed ${want}`;
  }
  return out;
}

const ZXID_FIELDS = ["czxid", "mzxid", "pzxid"] as const;
const TIME_FIELDS = ["ctime", "mtime"] as const;

function fieldMismatch(field: string, got: number, want: number): string {
  return `Stat.${field} was ${got}, but the node has ${want}`;
}

function whatZxid(field: "czxid" | "mzxid" | "pzxid"): string {
  return field === "czxid" ? "the node was created by txn" : field === "mzxid" ? "its data was last written by txn" : "its children last changed in txn";
}

function zxidOf(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  return parseZxidText(text) ?? (/^(0x[0-9a-f]+|\d+)$/i.test(text) ? BigInt(text) : undefined);
}

function sessionNumber(s: string): bigint | undefined {
  return /^(0x[0-9a-f]+|\d+)$/i.test(s) ? BigInt(s) : undefined;
}

function judgeEphemerals(tree: ZkTree, r: ReadOp): ReadVerdict {
  if (r.outcome !== "ok") return { ok: false, why: `getEphemerals ${r.path} failed with ${r.err}, but it cannot fail` };
  const prefix = r.path.trim();
  const all = prefix === "" || prefix === "/";
  const want: string[] = [];
  for (const [p, n] of tree.nodes) if (n.kind === "ephemeral" && n.owner === r.session && (all || p.startsWith(prefix))) want.push(p);
  want.sort();
  const res = r.result as OpResult | undefined;
  if (res?.children !== undefined && !sameSet(res.children, want)) return { ok: false, why: `getEphemerals ${r.path} returned [${[...res.children].sort().join(", ")}], but the session's ephemerals there are [${want.join(", ")}]` };
  if (res?.count !== undefined && res.count !== want.length) return { ok: false, why: `getEphemerals ${r.path} returned ${res.count} paths, but the session has ${want.length} ephemerals there` };
  return OK;
}

function judgeWhoAmI(r: ReadOp, ids: Identities): ReadVerdict {
  if (r.outcome !== "ok") return { ok: false, why: `whoAmI failed with ${r.err}, but it cannot fail` };
  const want = whoAmI(ids);
  const got = (r.result as OpResult | undefined)?.ids;
  if (want === undefined || got === undefined || sameSet(got, want)) return OK;
  return { ok: false, why: `whoAmI returned [${[...got].sort().join(", ")}], but the connection's identities are [${want.join(", ")}]` };
}

/** The number of nodes below `path` (every node but the root, for "/"). */
function descendants(tree: ZkTree, path: string): number {
  if (path === "/") return tree.nodes.size - 1;
  const prefix = `${path}/`;
  let n = 0;
  for (const p of tree.nodes.keys()) if (p.startsWith(prefix)) n++;
  return n;
}

function answered(r: ReadOp): string {
  return r.outcome === "ok" ? "succeeded" : `failed with ${r.err}`;
}

export function aclText(acl: string | undefined): string {
  if (acl === undefined) return "not known";
  return `[${acl.split("\n").filter((t) => parseAclEntry(t) !== undefined).join(", ")}]`;
}

const sortedResults = new WeakMap<readonly string[], readonly string[]>();

/** Compared as sets (ZooKeeper lists children in hash order); `have` is sorted. */
function sameSet(got: readonly string[], have: readonly string[]): boolean {
  if (got.length !== have.length) return false;
  let sorted = sortedResults.get(got);
  if (sorted === undefined) {
    sorted = [...got].sort();
    sortedResults.set(got, sorted);
  }
  for (let i = 0; i < have.length; i++) if (sorted[i] !== have[i]) return false;
  return true;
}
