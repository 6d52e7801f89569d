/**
 * A small workload for the data-tree model-based test, as fast-check arbitraries.
 *
 * Everything is drawn from tiny alphabets so that commands collide often: a handful of
 * paths (valid ones such as `/a`, `/a/b`, the special `/zookeeper/...` nodes, names that
 * sequential creates under `/a/` produce, and invalid ones such as `/a/`, `//x`, `/a/.`),
 * versions −1..2, every create mode (plus TTL modes and a bogus flag), a few named ACLs
 * (including invalid ones), three session slots and multis of 1–3 sub-ops.
 *
 * A command names a session *slot*, not a session id: slot 0 is authenticated as alice,
 * slot 1 as bob, slot 2 not at all (until an `addAuth` command). `closeSession` closes the
 * slot's session and opens a fresh one in that slot (with the slot's initial credentials),
 * like a client that reconnects with a new handle. The rare slot `UNKNOWN_SLOT` names a
 * session id the server never saw (a stale packet): writes fail the session check but still
 * consume a zxid, reads fail it without one.
 *
 * Commands are plain data (printable in a counterexample) with a `kind` discriminant.
 */
import fc from "fast-check";
import type { ACL } from "../../../src/zk/proto/records.js";
import { digestId } from "./reference-tree.js";

export const SESSION_SLOTS = 3;
/** A pseudo-slot whose session id is unknown to the server. */
export const UNKNOWN_SLOT = SESSION_SLOTS;

/** The credentials of each slot (`addauth digest user:password`), or null. */
export const SLOT_AUTH: readonly (string | null)[] = ["alice:secret", "bob:hunter2", null];

const ALICE = digestId("alice:secret");
const BOB = digestId("bob:hunter2");
const world = (perms: number): ACL => ({ perms, id: { scheme: "world", id: "anyone" } });

/** Named ACL lists, so a counterexample reads `acl: "aliceAll"` rather than a blob. */
export const ACLS = {
  open: [world(31)],
  readOnly: [world(1)],
  /** READ|WRITE|CREATE|DELETE: no ADMIN, so setACL fails and getACL masks digest ids. */
  noAdmin: [world(15)],
  /** CREATE|READ: children can be created but not deleted. */
  createRead: [world(5)],
  creatorAll: [{ perms: 31, id: { scheme: "auth", id: "" } }],
  aliceAll: [{ perms: 31, id: { scheme: "digest", id: ALICE } }],
  aliceAllWorldRead: [{ perms: 31, id: { scheme: "digest", id: ALICE } }, world(1)],
  bobWrite: [{ perms: 2, id: { scheme: "digest", id: BOB } }, world(1 | 4 | 8)],
  duplicates: [world(31), world(31)],
  creatorPlusOpen: [{ perms: 31, id: { scheme: "auth", id: "" } }, world(1)],
  // Invalid lists: INVALIDACL.
  empty: [],
  worldNobody: [{ perms: 31, id: { scheme: "world", id: "nobody" } }],
  digestMalformed: [{ perms: 31, id: { scheme: "digest", id: "alice" } }],
  unknownScheme: [{ perms: 31, id: { scheme: "foo", id: "bar" } }],
} satisfies Record<string, ACL[]>;
export type AclName = keyof typeof ACLS;

export function aclOf(name: AclName): ACL[] {
  return ACLS[name].map((a) => ({ perms: a.perms, id: { ...a.id } }));
}

/** Shallow paths are weighted up so that deeper ones often find their parent. */
const VALID_PATHS = ["/a", "/a", "/a", "/a", "/b", "/b", "/a/b", "/a/b", "/a/b", "/a/c", "/b/a", "/a/b/c"];
/** Names sequential creates produce (`/a/` + counter, `/s` + counter, `/a/s` + counter). */
const SEQUENTIAL_NAMES = ["/a/0000000000", "/a/0000000001", "/a/0000000002", "/a/s0000000001", "/s0000000003"];
const SPECIAL_PATHS = ["/", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"];
const INVALID_PATHS = ["/a/", "//x", "/a/.", "/a/..", "/a//b", "a", ""];
/** Prefixes only meaningful for sequential creates: `/a/` is legal there (§1.1). */
const SEQUENTIAL_PREFIXES = ["/a/", "/a/s", "/s", "/"];

export const pathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...VALID_PATHS) },
  { weight: 2, arbitrary: fc.constantFrom(...SEQUENTIAL_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_PATHS) },
  { weight: 2, arbitrary: fc.constantFrom(...INVALID_PATHS) },
);

const createPathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: pathArb },
  { weight: 1, arbitrary: fc.constantFrom(...SEQUENTIAL_PREFIXES) },
);

export const versionArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(-1) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 }) },
);

/**
 * PERSISTENT dominates so that trees grow; EPHEMERAL / *_SEQUENTIAL / CONTAINER are
 * common; TTL modes and a bogus flag are rare.
 */
const plainModeArb: fc.Arbitrary<number> = fc.constantFrom(0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 4);
export const modeArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 20, arbitrary: plainModeArb },
  { weight: 1, arbitrary: fc.constantFrom(5, 6, 7) },
);
/** Multi sub-ops: plain modes and, rarely, the bogus flag 7 (TTL flags cannot be expressed there). */
const subOpModeArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 20, arbitrary: plainModeArb },
  { weight: 1, arbitrary: fc.constant(7) },
);

/** Mostly absent (a plain create); sometimes a createTTL-style ttl, valid or not. */
const ttlArb: fc.Arbitrary<number | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1000) },
);

const aclNameArb: fc.Arbitrary<AclName> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<AclName>("open") },
  { weight: 6, arbitrary: fc.constantFrom<AclName>("readOnly", "noAdmin", "createRead", "creatorAll", "aliceAll", "aliceAllWorldRead", "bobWrite", "duplicates", "creatorPlusOpen") },
  { weight: 1, arbitrary: fc.constantFrom<AclName>("empty", "worldNobody", "digestMalformed", "unknownScheme") },
);

/**
 * Data as a short string (UTF-8 on the wire), so counterexamples stay readable; null is a
 * Jute buffer of length −1 (`create(path, null, …)` in the Java client).
 */
const dataArb: fc.Arbitrary<string | null> = fc.constantFrom("", "x", "hello", "zk", null);

const slotArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 0, max: SESSION_SLOTS - 1 }) },
  { weight: 1, arbitrary: fc.constant(UNKNOWN_SLOT) },
);

export type SubOpCommand =
  | { kind: "create"; path: string; data: string | null; acl: AclName; mode: number }
  | { kind: "delete"; path: string; version: number }
  | { kind: "setData"; path: string; data: string | null; version: number }
  | { kind: "check"; path: string; version: number };

export type Command =
  | { kind: "create"; slot: number; path: string; data: string | null; acl: AclName; mode: number; ttl?: number }
  | { kind: "delete"; slot: number; path: string; version: number }
  | { kind: "setData"; slot: number; path: string; data: string | null; version: number }
  | { kind: "setACL"; slot: number; path: string; acl: AclName; version: number }
  | { kind: "getData"; slot: number; path: string }
  | { kind: "exists"; slot: number; path: string }
  | { kind: "getChildren"; slot: number; path: string }
  | { kind: "getACL"; slot: number; path: string }
  | { kind: "multi"; slot: number; ops: SubOpCommand[] }
  | { kind: "closeSession"; slot: number }
  | { kind: "addAuth"; slot: number; userPassword: string };

const createArb = fc
  .record({ slot: slotArb, path: createPathArb, data: dataArb, acl: aclNameArb, mode: modeArb, ttl: ttlArb })
  .map(({ ttl, ...rest }): Command => (ttl === undefined ? { kind: "create", ...rest } : { kind: "create", ...rest, ttl }));

const subOpArb: fc.Arbitrary<SubOpCommand> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({ path: createPathArb, data: dataArb, acl: aclNameArb, mode: subOpModeArb })
      .map((r): SubOpCommand => ({ kind: "create", ...r })),
  },
  { weight: 2, arbitrary: fc.record({ path: pathArb, version: versionArb }).map((r): SubOpCommand => ({ kind: "delete", ...r })) },
  { weight: 2, arbitrary: fc.record({ path: pathArb, data: dataArb, version: versionArb }).map((r): SubOpCommand => ({ kind: "setData", ...r })) },
  { weight: 1, arbitrary: fc.record({ path: pathArb, version: versionArb }).map((r): SubOpCommand => ({ kind: "check", ...r })) },
);

const readArb = (kind: "getData" | "exists" | "getChildren" | "getACL"): fc.Arbitrary<Command> =>
  fc.record({ slot: slotArb, path: pathArb }).map((r): Command => ({ kind, ...r }));

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 11, arbitrary: createArb },
  { weight: 4, arbitrary: fc.record({ slot: slotArb, path: pathArb, version: versionArb }).map((r): Command => ({ kind: "delete", ...r })) },
  { weight: 4, arbitrary: fc.record({ slot: slotArb, path: pathArb, data: dataArb, version: versionArb }).map((r): Command => ({ kind: "setData", ...r })) },
  { weight: 2, arbitrary: fc.record({ slot: slotArb, path: pathArb, acl: aclNameArb, version: versionArb }).map((r): Command => ({ kind: "setACL", ...r })) },
  { weight: 2, arbitrary: readArb("getData") },
  { weight: 2, arbitrary: readArb("exists") },
  { weight: 2, arbitrary: readArb("getChildren") },
  { weight: 1, arbitrary: readArb("getACL") },
  { weight: 3, arbitrary: fc.record({ slot: slotArb, ops: fc.array(subOpArb, { minLength: 1, maxLength: 3 }) }).map((r): Command => ({ kind: "multi", ...r })) },
  { weight: 1, arbitrary: slotArb.map((slot): Command => ({ kind: "closeSession", slot })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ slot: fc.integer({ min: 0, max: SESSION_SLOTS - 1 }), userPassword: fc.constantFrom("alice:secret", "bob:hunter2", "carol:pw") })
      .map((r): Command => ({ kind: "addAuth", ...r })),
  },
);

/** A run: 1 to 40 commands, lengths spread over the whole range (`size: "max"`). */
export const commandsArb: fc.Arbitrary<Command[]> = fc.array(commandArb, { minLength: 1, maxLength: 40, size: "max" });

export function encodeData(data: string | null): Uint8Array | null {
  return data === null ? null : new TextEncoder().encode(data);
}
