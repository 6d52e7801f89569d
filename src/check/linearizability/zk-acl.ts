/**
 * The reference model's ACL semantics (docs/zookeeper.md §5), written from the documented rules
 * and the Java classes named there, independently of `zk/server/acl.ts`.
 *
 * - A caller's identities: the `ip` of the address it connects from; one `digest` id per
 *   `addauth digest user:password` (`user:base64(sha1("user:password"))`); `super` when such a
 *   digest equals the server's superDigest. Other schemes add nothing (their auth fails the
 *   handle). What the model cannot know is "unknown": the client's address when the run did not
 *   say it, credentials added while the op was in flight, the super digest of a run that did not
 *   record its server settings.
 * - Fix-up at create/setACL: duplicates dropped; `world` only with id `anyone`; `auth` becomes
 *   one entry per authenticated (digest) identity of the caller, INVALIDACL if none; `digest`
 *   ids must split into exactly two parts on ':'; `ip` ids must be an address with optional
 *   `/bits`; any other scheme (super included) is INVALIDACL.
 * - The check: allowed when the caller is super, or an entry grants one of the wanted bits and
 *   is `world:anyone` or matches one of the caller's ids of its scheme (digest: equal; ip: the
 *   first `bits` bits equal). Three answers: "yes", "no", or "maybe" when an unknown decides it.
 *
 * ACL text: each entry `scheme:id:perms` (the history's form); a stored ACL is the sorted list
 * joined by newlines (`aclKey`): Java keeps the list order, but the auth expansion follows the
 * order of a hash set, so the model compares ACLs as multisets. Java removes duplicates from the
 * list asked for, not from what the `auth` expansion adds, so a stored ACL may repeat an entry.
 */
import { createHash } from "node:crypto";
import type { Credential } from "../history/history.js";

export const READ = 1;
export const WRITE = 2;
export const CREATE = 4;
export const DELETE = 8;
export const ADMIN = 16;

export interface AclEntry {
  scheme: string;
  id: string;
  perms: number;
}

/** What the model knows of the servers' settings and the clients' addresses. */
export interface ServerFacts {
  /** The run recorded its settings (`workload.zk-config`): absent ones are the defaults. */
  known: boolean;
  superDigest?: string;
  /** TTL nodes allowed (`zookeeper.extendedTypesEnabled`); undefined: not known. */
  extendedTypes: boolean | undefined;
  /** Client node → the address its connections come from. */
  addresses: ReadonlyMap<string, string>;
}

export const UNKNOWN_FACTS: ServerFacts = { known: false, extendedTypes: undefined, addresses: new Map() };

/** The identities an op's connection carries. */
export interface Identities {
  /** Digest ids (`user:hash`), from `addauth digest`. */
  digests: readonly string[];
  /** The connection's address; undefined when not known. */
  ip: string | undefined;
  super: boolean | "maybe";
  /** The credentials themselves are not known (added while the op was in flight). */
  uncertain: boolean;
}

export type Decision = "yes" | "no" | "maybe";

/** OPEN_ACL_UNSAFE as entry text and as a stored ACL key (one entry: the same text). */
const OPEN_ACL_KEY = "world:anyone:31";

/** The identities of an op by `client` with `credentials`. */
export function identitiesOf(facts: ServerFacts, client: string, credentials: readonly Credential[] | undefined, uncertain: boolean): Identities {
  const list = credentials ?? [];
  const digests: string[] = [];
  let isSuper: boolean | "maybe" = false;
  for (const c of list) {
    if (c.scheme !== "digest") continue;
    // Data the client recorded as a digest is not printable: its clear text is not known.
    if (c.auth.charCodeAt(0) === 1) {
      uncertain = true;
      continue;
    }
    const id = digestId(c.auth);
    if (!digests.includes(id)) digests.push(id);
    if (facts.known ? id === facts.superDigest : true) isSuper = facts.known ? true : "maybe";
  }
  return { digests, ip: facts.addresses.get(client), super: isSuper, uncertain };
}

/** `DigestAuthenticationProvider.generateDigest`: `user:base64(sha1("user:password"))`. */
export function digestId(idPassword: string): string {
  const user = idPassword.split(":", 1)[0] ?? "";
  return `${user}:${createHash("sha1").update(idPassword, "utf8").digest("base64")}`;
}

// ---- ACL text -----------------------------------------------------------------------------------

export function parseAclEntry(text: string): AclEntry | undefined {
  const first = text.indexOf(":");
  const last = text.lastIndexOf(":");
  if (first < 0 || last <= first) return undefined;
  const perms = Number(text.slice(last + 1));
  if (!Number.isInteger(perms)) return undefined;
  return { scheme: text.slice(0, first), id: text.slice(first + 1, last), perms };
}

export function entryText(e: AclEntry): string {
  return `${e.scheme}:${e.id}:${e.perms}`;
}

const parsedKeys = new Map<string, AclEntry[]>();

/** The entries of a stored ACL key (parsed once per distinct key). */
export function entriesOf(key: string): AclEntry[] {
  let list = parsedKeys.get(key);
  if (list === undefined) {
    list = key === "" ? [] : key.split("\n").map((t) => parseAclEntry(t)!);
    parsedKeys.set(key, list);
  }
  return list;
}

/** The stored ACL as text: sorted, duplicates kept (an `auth` expansion may repeat an explicit entry, as Java keeps it). */
export function aclKey(entries: readonly AclEntry[]): string {
  return entries.map(entryText).sort().join("\n");
}

// ---- fix-up ------------------------------------------------------------------------------------

/** `PrepRequestProcessor.fixupACL`: the ACL to store, "INVALIDACL", or undefined (not known: uncertain credentials). */
export function fixupAcl(requested: readonly string[], ids: Identities): string | "INVALIDACL" | undefined {
  // OPEN_ACL_UNSAFE alone (a create or setACL without an ACL): kept as it is, whoever asks.
  if (requested.length === 1 && requested[0] === OPEN_ACL_KEY) return OPEN_ACL_KEY;
  const out: AclEntry[] = [];
  let unknown = false;
  const seen = new Set<string>();
  for (const text of requested) {
    if (seen.has(text)) continue;
    seen.add(text);
    const e = parseAclEntry(text);
    if (e === undefined) return "INVALIDACL";
    if (e.scheme === "world") {
      if (e.id !== "anyone") return "INVALIDACL";
      out.push(e);
    } else if (e.scheme === "auth") {
      if (ids.uncertain) unknown = true;
      else if (ids.digests.length === 0) return "INVALIDACL";
      for (const d of ids.digests) out.push({ scheme: "digest", id: d, perms: e.perms });
    } else if (e.scheme === "digest") {
      if (javaSplitCount(e.id) !== 2) return "INVALIDACL";
      out.push(e);
    } else if (e.scheme === "ip") {
      if (parseIp(e.id) === undefined) return "INVALIDACL";
      out.push(e);
    } else {
      return "INVALIDACL";
    }
  }
  if (seen.size === 0) return "INVALIDACL";
  return unknown ? undefined : aclKey(out);
}

/** How many parts Java's `String.split(":")` gives (trailing empty parts dropped). */
function javaSplitCount(s: string): number {
  const parts = s.split(":");
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return Math.max(1, parts.length);
}

// ---- the check ---------------------------------------------------------------------------------

/** `ZooKeeperServer.checkACL` with unknowns: may a caller with `ids` do `perm` on a node with `acl`? */
export function decide(acl: string | undefined, perm: number, ids: Identities): Decision {
  // OPEN_ACL_UNSAFE (`world:anyone`, every permission), the common case: anyone may.
  if (acl === OPEN_ACL_KEY || ids.super === true) return "yes";
  if (acl === undefined) return "maybe";
  const entries = entriesOf(acl);
  if (entries.length === 0) return "yes";
  let maybe = ids.uncertain || ids.super === "maybe";
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]!;
    if ((e.perms & perm) === 0) continue;
    if (e.scheme === "world" && e.id === "anyone") return "yes";
    if (e.scheme === "digest" && ids.digests.includes(e.id)) return "yes";
    if (e.scheme === "ip") {
      if (ids.ip === undefined) maybe = true;
      else if (ipMatches(ids.ip, e.id)) return "yes";
    }
  }
  return maybe ? "maybe" : "no";
}

/** getACL's answer for a caller without ADMIN: digest ids as `user:x`. */
export function maskedAcl(acl: string): string {
  return aclKey(entriesOf(acl).map((e) => (e.scheme === "digest" ? { ...e, id: e.id.replace(/:.*/, ":x") } : e)));
}

/** whoAmI's answer (`scheme:user` each), or undefined when it is not known. */
export function whoAmI(ids: Identities): string[] | undefined {
  if (ids.uncertain || ids.ip === undefined || ids.super === "maybe") return undefined;
  const out = [`ip:${ids.ip}`, ...ids.digests.map((d) => `digest:${d.split(":", 1)[0]}`)];
  if (ids.super) out.push("super:");
  return out.sort();
}

// ---- ip --------------------------------------------------------------------------------------

/** `addr[/bits]` as bytes and a prefix length (IPv4 as 3.8.0 reads it; IPv6 as 3.9). */
function parseIp(expr: string): { bytes: number[]; bits: number } | undefined {
  const slash = expr.indexOf("/");
  const addr = slash < 0 ? expr : expr.slice(0, slash);
  const bytes = addr.includes(":") ? ipv6Bytes(addr) : ipv4Bytes(addr);
  if (bytes === undefined) return undefined;
  let bits = bytes.length * 8;
  if (slash >= 0) {
    const b = expr.slice(slash + 1);
    if (!/^[+-]?\d+$/.test(b)) return undefined;
    bits = Number.parseInt(b, 10);
    if (bits < 0 || bits > bytes.length * 8) return undefined;
  }
  return { bytes, bits };
}

function ipv4Bytes(addr: string): number[] | undefined {
  const parts = addr.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^[+-]?\d+$/.test(p))) return undefined;
  const bytes = parts.map((p) => Number.parseInt(p, 10));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

function ipv6Bytes(addr: string): number[] | undefined {
  const halves = addr.split("::");
  if (halves.length > 2) return undefined;
  const groups = (text: string): number[] | undefined => {
    if (text === "") return [];
    const g = text.split(":");
    return g.every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) ? g.map((x) => Number.parseInt(x, 16)) : undefined;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1 ? head.length !== 8 : head.length + tail.length >= 8) return undefined;
  const all = halves.length === 1 ? head : [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

function ipMatches(address: string, expr: string): boolean {
  const acl = parseIp(expr);
  const remote = address.includes(":") ? ipv6Bytes(address) : ipv4Bytes(address);
  if (acl === undefined || remote === undefined || remote.length !== acl.bytes.length) return false;
  for (let i = 0; i < remote.length; i++) {
    const keep = Math.max(0, Math.min(8, acl.bits - i * 8));
    const mask = (0xff << (8 - keep)) & 0xff;
    if ((remote[i]! & mask) !== (acl.bytes[i]! & mask)) return false;
  }
  return true;
}
