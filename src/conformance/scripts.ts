/**
 * The conformance op scripts (docs/conformance.md): each drives a server through the project's
 * TCP client and records what it answers. Together they cover every op and the error codes a
 * client meets, Stat fields, sequential names after deletes, multi results and atomicity, ACL
 * denials, the watch trigger table, persistent and recursive watches, session close and expiry
 * seen from another session, four-letter words, and connection loss with re-attach.
 *
 * A script must give the same transcript on every run against a correct server: it never races
 * two sessions without a barrier (`events` waits for a round trip), and it records no wall time.
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { JAAS_PROPERTY, SUPER_DIGEST_PROPERTY, serveAuthFrom } from "../serve/server-auth.js";
import { fourLetterWhitelist, settingsFromFlags, type ServeSettings } from "../serve/zoo-cfg.js";
import { Op } from "../zk/client/op.js";
import { AddWatchMode, CreateMode, Ids, Perms, WatcherType, type ACL } from "../zk/proto/records.js";
import type { ConformanceScript } from "./runner.js";
import { encodeClientFrame } from "../zk/proto/codec.js";
import { frame } from "../zk/proto/codec-framing.js";
import { OpCode } from "../zk/proto/op-code.js";
import type { RequestACL } from "../zk/proto/records.js";
import type { RequestRecord } from "../zk/proto/packets.js";
import type { ZooKeeper } from "../zk/client/zoo-keeper.js";

const OPEN = Ids.OPEN_ACL_UNSAFE;
const { PERSISTENT, EPHEMERAL, PERSISTENT_SEQUENTIAL, EPHEMERAL_SEQUENTIAL } = CreateMode;

/** A `digest` ACL for user:password, hashed as ZooKeeper's DigestAuthenticationProvider does (base64 SHA-1 of "user:password"). */
function digestAcl(user: string, password: string, perms: number): ACL {
  const digest = createHash("sha1").update(`${user}:${password}`).digest("base64");
  return { perms, id: { scheme: "digest", id: `${user}:${digest}` } };
}

/**
 * The super digest both servers are started with (`super:adminsecret`): the real one through
 * `SERVER_JVMFLAGS`, `zksim serve` through its auth settings. Harmless to every other script.
 */
export const CONFORMANCE_SUPER_DIGEST = "super:GcMT0ijsx21yLyTWAWMqFV/azZE=";

/** The JAAS file both servers start with: a Client section and no Server section, so no SASL login (conformance/). */
export const CONFORMANCE_JAAS_FILE = fileURLToPath(new URL("../../conformance/jaas-without-server.conf", import.meta.url));

/** The system properties both servers start with: the super digest, and the JAAS file without a Server section. */
const CONFORMANCE_SERVER_PROPERTIES: ReadonlyMap<string, string> = new Map([
  [SUPER_DIGEST_PROPERTY, CONFORMANCE_SUPER_DIGEST],
  [JAAS_PROPERTY, CONFORMANCE_JAAS_FILE],
]);

/** Those properties as the real server's `SERVER_JVMFLAGS`. */
export const CONFORMANCE_JVM_FLAGS = [...CONFORMANCE_SERVER_PROPERTIES].map(([k, v]) => `-D${k}=${v}`).join(" ");

/** `zksim serve`'s settings as the real server is configured: one server on `clientPort` (0: any), every four-letter word allowed, those properties. */
export function conformanceServeSettings(clientPort: number): ServeSettings {
  const base = settingsFromFlags(1, 0, 2181);
  const auth = serveAuthFrom(CONFORMANCE_SERVER_PROPERTIES, (path) => readFileSync(path, "utf8"), () => undefined);
  return { ...base, members: base.members.map((m) => ({ ...m, clientPort })), fourLetterWords: fourLetterWhitelist("*"), auth };
}

/** `addauth digest <credentials>` on `c`, then a read of `path` (the server answers the auth first). */
function addDigestThenRead(c: ZooKeeper, credentials: string, path: string): Promise<unknown> {
  c.addAuthInfo("digest", credentials);
  return c.getData(path);
}

/** A framed ConnectRequest for a new session. */
function connectFrame(): Uint8Array {
  return frame(encodeClientFrame({ kind: "connect", request: { kind: "ConnectRequest", protocolVersion: 0, lastZxidSeen: 0n, timeOut: 30_000, sessionId: 0n, passwd: new Uint8Array(16), readOnly: false } }));
}

/** A framed request. */
function requestFrame(xid: number, type: number, request: RequestRecord): Uint8Array {
  return frame(encodeClientFrame({ kind: "request", header: { xid, type }, request }));
}

/** A framed request whose body is `body` as given (a RequestHeader, then bytes that may not parse). */
function rawRequestFrame(xid: number, type: number, body: readonly number[]): Uint8Array {
  const payload = new Uint8Array(8 + body.length);
  const view = new DataView(payload.buffer);
  view.setInt32(0, xid);
  view.setInt32(4, type);
  payload.set(body, 8);
  return frame(payload);
}

/** Big-endian int, then the bytes of `text`: a Jute string whose length may lie. */
function lyingString(length: number, text: string): number[] {
  return [(length >>> 24) & 255, (length >>> 16) & 255, (length >>> 8) & 255, length & 255, ...new TextEncoder().encode(text)];
}

const wait = (bytes: Uint8Array, waitMs = 300) => ({ bytes, waitMs });
const createWith = (xid: number, path: string, acl: RequestACL[]) => requestFrame(xid, OpCode.create, { kind: "CreateRequest", path, data: null, acl, flags: 0 });
const existsFrame = (xid: number, path: string) => requestFrame(xid, OpCode.exists, { kind: "ExistsRequest", path, watch: false });

export const CONFORMANCE_SCRIPTS: readonly ConformanceScript[] = [
  {
    name: "crud-and-stat",
    about: "create/getData/setData/exists/delete with every Stat field, versions and the error codes of each",
    async run(t) {
      const a = await t.client("a");
      const p = `${t.root}/n`;
      await t.op("create", () => a.create(p, "v0", OPEN, PERSISTENT));
      await t.op("create again", () => a.create(p, "x", OPEN, PERSISTENT));
      await t.op("create under missing parent", () => a.create(`${t.root}/missing/child`, "x", OPEN, PERSISTENT));
      await t.op("getData", () => a.getData(p));
      await t.op("setData v0", () => a.setData(p, "v1", 0));
      await t.op("setData stale version", () => a.setData(p, "v2", 0));
      await t.op("setData any version", () => a.setData(p, "", -1));
      await t.op("getData empty", () => a.getData(p));
      await t.op("exists", () => a.exists(p));
      await t.op("exists missing", () => a.exists(`${t.root}/nope`));
      await t.op("getData missing", () => a.getData(`${t.root}/nope`));
      await t.op("create child", () => a.create(`${p}/c`, null, OPEN, PERSISTENT));
      await t.op("parent stat after child", () => a.exists(p));
      await t.op("delete non-empty", () => a.delete(p, -1));
      await t.op("delete child bad version", () => a.delete(`${p}/c`, 5));
      await t.op("delete child", () => a.delete(`${p}/c`, 0));
      await t.op("parent stat after delete", () => a.exists(p));
      await t.op("delete", () => a.delete(p, 2));
      await t.op("delete missing", () => a.delete(p, -1));
      await t.op("root stat", () => a.exists(t.root));
    },
  },
  {
    name: "ephemeral-and-sequential",
    about: "ephemeral owners, no children under ephemerals, sequential names continuing after deletes",
    async run(t) {
      const a = await t.client("a");
      const b = await t.client("b");
      await t.op("ephemeral", () => a.create(`${t.root}/e`, "a's", OPEN, EPHEMERAL));
      await t.op("ephemeral stat from b", () => b.exists(`${t.root}/e`));
      await t.op("child of ephemeral", () => a.create(`${t.root}/e/c`, null, OPEN, PERSISTENT));
      await t.op("seq 1", () => a.create(`${t.root}/s-`, null, OPEN, PERSISTENT_SEQUENTIAL));
      await t.op("seq 2", () => b.create(`${t.root}/s-`, null, OPEN, EPHEMERAL_SEQUENTIAL));
      await t.op("delete seq 2", () => a.delete(`${t.root}/s-0000000002`, -1));
      await t.op("seq 3 after delete", () => a.create(`${t.root}/s-`, null, OPEN, PERSISTENT_SEQUENTIAL));
      await t.op("seq with other prefix", () => a.create(`${t.root}/q`, null, OPEN, PERSISTENT_SEQUENTIAL));
      await t.op("getEphemerals a", () => a.getEphemerals(t.root));
      await t.op("getEphemerals b", () => b.getEphemerals(t.root));
      await t.op("getAllChildrenNumber", () => a.getAllChildrenNumber(t.root));
      await t.op("root stat", () => a.exists(t.root));
    },
  },
  {
    name: "children-order",
    about: "getChildren order as the server's hash set gives it (not sorted), before and after growth",
    async run(t) {
      const a = await t.client("a");
      for (const name of ["zeta", "alpha", "m1", "b", "lock-0000000010", "lock-0000000002", "x"]) {
        await t.op(`create ${name}`, () => a.create(`${t.root}/${name}`, null, OPEN, PERSISTENT));
      }
      await t.op("getChildren (7)", () => a.getChildren(t.root));
      for (let i = 0; i < 12; i++) await t.op(`create n${i}`, () => a.create(`${t.root}/n${i}`, null, OPEN, PERSISTENT));
      await t.op("getChildren (19)", () => a.getChildren(t.root));
      await t.op("delete alpha", () => a.delete(`${t.root}/alpha`, -1));
      await t.op("getChildren2 (18)", () => a.getChildren2(t.root));
    },
  },
  {
    name: "multi",
    about: "multi results, atomicity of a failing multi, check ops, multiRead",
    async run(t) {
      const a = await t.client("a");
      const p = `${t.root}/m`;
      await t.op("multi ok", () => a.multi([Op.create(p, "1", OPEN, PERSISTENT), Op.create(`${p}/c`, null, OPEN, PERSISTENT), Op.setData(p, "2", 0), Op.check(p, 1)]));
      await t.op("multi failing in the middle", () => a.multi([Op.create(`${t.root}/new`, null, OPEN, PERSISTENT), Op.check(p, 7), Op.delete(`${p}/c`, -1)]));
      await t.op("atomic: created node absent", () => a.exists(`${t.root}/new`));
      await t.op("atomic: child still there", () => a.exists(`${p}/c`));
      await t.op("multi delete then create", () => a.multi([Op.delete(`${p}/c`, 0), Op.create(`${p}/c`, "again", OPEN, PERSISTENT)]));
      await t.op("multiRead", () => a.multiRead([Op.getData(p), Op.getChildren(p), Op.getData(`${t.root}/missing`)]));
      await t.op("empty multi", () => a.multi([]));
    },
  },
  {
    name: "acl",
    about: "ACL denials, digest auth, setACL versions, invalid ACLs, whoAmI",
    async run(t) {
      const a = await t.client("a");
      const b = await t.client("b");
      const p = `${t.root}/secret`;
      await t.op("create digest-only", () => a.create(p, "s", [digestAcl("alice", "secret", Perms.ALL)], PERSISTENT));
      await t.op("read without auth", () => b.getData(p));
      await t.op("getACL without auth", () => b.getACL(p));
      await t.op("wrong password", () => addDigestThenRead(b, "alice:wrong", p));
      await t.op("addauth alice", () => addDigestThenRead(b, "alice:secret", p));
      await t.op("whoAmI b", () => b.whoAmI());
      await t.op("setACL stale aversion", () => b.setACL(p, OPEN, 3));
      await t.op("setACL", () => b.setACL(p, [digestAcl("alice", "secret", Perms.READ)], 0));
      await t.op("write after read-only ACL", () => b.setData(p, "w", -1));
      await t.op("create with empty ACL", () => a.create(`${t.root}/empty-acl`, null, [], PERSISTENT));
      await t.op("create with unknown scheme", () => a.create(`${t.root}/bad-acl`, null, [{ perms: Perms.ALL, id: { scheme: "nosuch", id: "x" } }], PERSISTENT));
      await t.op("CREATOR_ALL without auth", () => a.create(`${t.root}/creator`, null, Ids.CREATOR_ALL_ACL, PERSISTENT));
      await t.op("CREATOR_ALL with auth", () => b.create(`${t.root}/creator`, null, Ids.CREATOR_ALL_ACL, PERSISTENT));
      await t.op("getACL CREATOR_ALL", () => b.getACL(`${t.root}/creator`));
      await t.op("read-only ACL node", () => a.create(`${t.root}/ro`, "r", Ids.READ_ACL_UNSAFE, PERSISTENT));
      await t.op("write read-only node", () => a.setData(`${t.root}/ro`, "w", -1));
      await t.op("create under read-only node", () => a.create(`${t.root}/ro/c`, null, OPEN, PERSISTENT));
    },
  },
  {
    name: "watch-triggers",
    about: "every row of the standard watch trigger table, and one-shot delivery",
    async run(t) {
      const a = await t.client("a");
      const w = await t.client("w");
      const p = `${t.root}/w`;
      await t.op("exists watch on missing", () => w.exists(p, true));
      await t.op("create", () => a.create(p, "0", OPEN, PERSISTENT));
      await t.events("w", "NodeCreated from exists");
      await t.op("getData watch", () => w.getData(p, true));
      await t.op("exists watch", () => w.exists(p, true));
      await t.op("getChildren watch", () => w.getChildren(p, true));
      await t.op("setData", () => a.setData(p, "1", -1));
      await t.events("w", "NodeDataChanged once for data+exists");
      await t.op("setData again (no watch left)", () => a.setData(p, "2", -1));
      await t.events("w", "nothing after one-shot");
      await t.op("create child", () => a.create(`${p}/c`, null, OPEN, PERSISTENT));
      await t.events("w", "NodeChildrenChanged on child create");
      await t.op("getData watch on child", () => w.getData(`${p}/c`, true));
      await t.op("getChildren watch again", () => w.getChildren(p, true));
      await t.op("delete child", () => a.delete(`${p}/c`, -1));
      await t.events("w", "NodeDeleted and NodeChildrenChanged on child delete");
      await t.op("getData+getChildren watch", async () => [await w.getData(p, true), await w.getChildren(p, true)]);
      await t.op("delete node", () => a.delete(p, -1));
      await t.events("w", "NodeDeleted once on delete");
      await t.op("setData on missing", () => a.setData(p, "x", -1));
      await t.events("w", "nothing on failed op");
      await t.op("removeWatches none", () => w.removeAllWatches(p, WatcherType.Any, false));
    },
  },
  {
    name: "persistent-watches",
    about: "persistent and persistent-recursive watches: repeated delivery, subtree events, removal",
    async run(t) {
      const a = await t.client("a");
      const w = await t.client("w");
      const p = `${t.root}/pw`;
      const seen: string[] = [];
      await t.op("create", () => a.create(p, null, OPEN, PERSISTENT));
      await t.op("addWatch persistent", () => w.addWatch(p, (e) => seen.push(`persistent ${e.type} ${e.path}`), AddWatchMode.PERSISTENT));
      await t.op("addWatch recursive", () => w.addWatch(t.root, (e) => seen.push(`recursive ${e.type} ${e.path}`), AddWatchMode.PERSISTENT_RECURSIVE));
      await t.op("setData 1", () => a.setData(p, "1", -1));
      await t.op("setData 2", () => a.setData(p, "2", -1));
      await t.op("create child", () => a.create(`${p}/c`, null, OPEN, PERSISTENT));
      await t.op("create grandchild", () => a.create(`${p}/c/g`, null, OPEN, PERSISTENT));
      await t.op("delete grandchild", () => a.delete(`${p}/c/g`, -1));
      await t.events("w", "barrier");
      t.note("persistent watchers saw", seen.splice(0));
      await t.op("removeWatches persistent", () => w.removeAllWatches(p, WatcherType.Any, false));
      await t.op("setData 3", () => a.setData(p, "3", -1));
      await t.events("w", "barrier 2");
      t.note("after removal", seen.splice(0));
    },
  },
  {
    name: "sessions",
    about: "session close and expiry seen from another session; a lost connection re-attached by id and password",
    async run(t) {
      const a = await t.client("a");
      const b = await t.client("b");
      const c = await t.client("c", { sessionTimeoutMs: 4000 });
      await t.op("a ephemeral", () => a.create(`${t.root}/a`, null, OPEN, EPHEMERAL));
      await t.op("c ephemeral", () => c.create(`${t.root}/c`, null, OPEN, EPHEMERAL));
      await t.op("b watches a's", () => b.exists(`${t.root}/a`, true));
      await t.op("b watches c's", () => b.exists(`${t.root}/c`, true));
      t.note("negotiated timeout c", c.getSessionTimeout());
      t.abandon("a");
      const a2 = await t.reattach("a", "a2");
      await t.op("re-attached session keeps its ephemeral", () => a2.exists(`${t.root}/a`));
      await t.op("re-attached session writes", () => a2.create(`${t.root}/a2`, null, OPEN, EPHEMERAL));
      await t.events("b", "nothing while a re-attaches");
      await t.op("close a", () => a2.close());
      await t.events("b", "NodeDeleted when a closes");
      await t.op("a's ephemerals gone", async () => [await b.exists(`${t.root}/a`), await b.exists(`${t.root}/a2`)]);
      t.abandon("c");
      await t.awaitGone("b", `${t.root}/c`, "c's ephemeral gone after expiry", 20_000);
      await t.events("b", "NodeDeleted when c expires");
    },
  },
  {
    name: "super-digest",
    about: "zookeeper.DigestAuthenticationProvider.superDigest: a wrong super password is an ordinary digest id; the right one passes every ACL check",
    async run(t) {
      const a = await t.client("a");
      const s = await t.client("s");
      const p = `${t.root}/locked`;
      a.addAuthInfo("digest", "alice:secret");
      await t.op("create alice-only", () => a.create(p, "v", [digestAcl("alice", "secret", Perms.READ | Perms.CREATE | Perms.ADMIN)], PERSISTENT));
      await t.op("create read-only child", () => a.create(`${p}/c`, "c", [digestAcl("alice", "secret", Perms.READ)], PERSISTENT));
      await t.op("wrong super password", () => addDigestThenRead(s, "super:wrong", p));
      await t.op("addauth super", () => addDigestThenRead(s, "super:adminsecret", p));
      await t.op("whoAmI super", () => s.whoAmI());
      await t.op("getACL as super is not masked", () => s.getACL(p));
      await t.op("setData as super", () => s.setData(p, "w", -1));
      await t.op("delete as super", async () => {
        await s.delete(`${p}/c`, -1);
        return s.getChildren(p);
      });
      await t.op("setACL as super", () => s.setACL(p, [digestAcl("alice", "secret", Perms.ALL)], 0));
    },
  },
  {
    name: "four-letter-words",
    about: "ruok, isro, the shape of srvr (numbers masked), dirs (one directory for logs and snapshots, a preallocated log in it), conf (directories, sizes and port masked), every key of mntr in its order",
    async run(t) {
      await t.fourLetterWord("ruok", "ruok");
      await t.fourLetterWord("isro", "isro");
      await t.fourLetterWord("dirs", "dirs: one directory for logs and snapshots, a preallocated log in it", (answer) => {
        const size = (key: string) => Number(new RegExp(`${key}: (\\d+)`).exec(answer)?.[1] ?? -1);
        return { sameSize: size("datadir_size") === size("logdir_size"), atLeast64MiB: size("datadir_size") >= 64 * 1024 * 1024, keys: answer.split("\n").filter((l) => l !== "").map((l) => l.split(":")[0]) };
      });
      await t.fourLetterWord("srvr", "srvr keys", (answer) =>
        answer
          .split("\n")
          .filter((l) => l.length > 0)
          .map((l) => l.split(":")[0]),
      );
      await t.fourLetterWord("conf", "conf: every line, directories, sizes and the port masked", (answer) =>
        answer
          .split("\n")
          .filter((l) => l.length > 0)
          .map((l) => l.replace(/^(clientPort|dataDirSize|dataLogSize)=\d+$/, "$1=N").replace(/^(dataDir|dataLogDir)=.*\/version-2$/, "$1=DIR/version-2")),
      );
      await t.fourLetterWord("mntr", "mntr: every key in 3.8.0's order (the summaries 3.8 adds per top-level znode read or written left out), and the state", (answer) => {
        const rows = answer.split("\n").filter((l) => l.length > 0).map((l) => l.split("\t"));
        return { keys: rows.map(([k]) => k).filter((k) => !/_(read|write)_per_namespace$/.test(k!)), state: rows.find(([k]) => k === "zk_server_state")?.[1] };
      });
    },
  },
  {
    name: "ephemeral-order",
    about: "a closing session's ephemerals deleted in Java HashSet order (the watcher's events), getEphemerals, and the dump/wchp/wchc/cons four-letter words",
    async run(t) {
      const a = await t.client("a");
      const w = await t.client("w");
      // Inserted in this order; a HashSet of 16 buckets walks them in another, and the clone
      // PrepRequestProcessor lists in the closeSession txn (8 buckets) in a third.
      const names = ["x1", "eph-a", "eph-c", "eph-b", "eph-d"];
      for (const n of names) await t.op(`create ${n}`, () => a.create(`${t.root}/${n}`, null, OPEN, EPHEMERAL));
      for (const n of names) await t.op(`w watches ${n}`, () => w.exists(`${t.root}/${n}`, true));
      await t.op("w watches the children", () => w.getChildren(t.root, true));
      await t.op("getEphemerals a", () => a.getEphemerals("/"));
      const mine = (answer: string) => answer.split("\n").filter((l) => l.includes(`${t.root}/`)).map((l) => l.trim());
      await t.fourLetterWord("dump", "dump: a's ephemerals", mine);
      await t.fourLetterWord("wchp", "wchp: watched paths", mine);
      await t.fourLetterWord("wchc", "wchc: w's paths", mine);
      await t.fourLetterWord("wchs", "wchs shape", (answer) => answer.replace(/\d+/g, "N"));
      await t.fourLetterWord("cons", "cons: fields of a session's line", (answer) => {
        const line = answer.split("\n").find((l) => l.includes(",sid=0x"));
        return line?.replace(/^ \/[^[]+/, "").replace(/=[^,)]+/g, "=");
      });
      await t.op("close a", () => a.close());
      await t.events("w", "events when a closes");
    },
  },
  {
    name: "wire-protocol",
    about: "raw frames: requests pipelined behind the ConnectRequest, null ACL ids, a malformed body inside a well-formed frame, an unknown opcode",
    async run(t) {
      const p = t.root;
      await t.wire("requests written with the ConnectRequest are answered once the session is established", [
        wait(concat(connectFrame(), requestFrame(1, OpCode.getData, { kind: "GetDataRequest", path: p, watch: false }), existsFrame(2, p), createWith(3, `${p}/pipelined`, Ids.OPEN_ACL_UNSAFE)), 800),
      ]);
      const authNull: RequestACL[] = [{ perms: Perms.ALL, id: { scheme: "auth", id: null } }];
      const authPacket = requestFrame(-4, OpCode.auth, { kind: "AuthPacket", type: 0, scheme: "digest", auth: new TextEncoder().encode("alice:secret") });
      await t.wire("null ACL ids (Jute's -1 string): auth, world, digest, a null scheme, setACL", [
        wait(connectFrame()),
        wait(createWith(1, `${p}/auth-null-unauthenticated`, authNull)),
        wait(authPacket),
        wait(createWith(2, `${p}/auth-null`, authNull)),
        wait(createWith(3, `${p}/world-null`, [{ perms: Perms.ALL, id: { scheme: "world", id: null } }])),
        wait(createWith(4, `${p}/digest-null`, [{ perms: Perms.ALL, id: { scheme: "digest", id: null } }])),
        wait(createWith(5, `${p}/scheme-null`, [{ perms: Perms.ALL, id: { scheme: null, id: "anyone" } }])),
        wait(createWith(6, `${p}/unknown-scheme-null`, [{ perms: Perms.ALL, id: { scheme: "nosuch", id: null } }])),
        wait(requestFrame(7, OpCode.setACL, { kind: "SetACLRequest", path: `${p}/auth-null`, acl: authNull, version: -1 })),
        wait(existsFrame(8, `${p}/auth-null`)),
      ]);
      await t.wire("a malformed body inside a well-formed frame: MARSHALLINGERROR, the connection kept", [
        wait(connectFrame()),
        wait(rawRequestFrame(1, OpCode.getData, lyingString(1000, "/ab"))),
        wait(existsFrame(2, p)),
        wait(rawRequestFrame(3, OpCode.create, [...lyingString(`${p}/m`.length, `${p}/m`), 255, 255, 255, 255, 0, 1, 134, 160])),
        wait(rawRequestFrame(4, OpCode.setData, [...lyingString(1, "/"), 0, 0, 0, 50])),
        wait(existsFrame(5, p)),
      ]);
      await t.wire("an unknown opcode: UNIMPLEMENTED with zxid -1, then the connection closes", [wait(connectFrame()), wait(rawRequestFrame(1, 9999, []), 600)]);
      await t.wire("a request header cut short closes the connection", [wait(connectFrame()), wait(frame(Uint8Array.of(0, 0, 0, 1)), 600)]);
    },
  },
  {
    name: "sasl-without-login",
    about: "both servers start with a JAAS file that has no Server section: they serve, without a SASL login (a SASL token answered OK with a null token)",
    async run(t) {
      const sasl = (xid: number) => requestFrame(xid, OpCode.sasl, { kind: "GetSASLRequest", token: new Uint8Array(0) });
      await t.wire("a SASL token, then a read: OK with a null token (4 bytes), the connection kept", [wait(connectFrame()), wait(sasl(1)), wait(existsFrame(2, t.root))]);
    },
  },
  {
    name: "held-connect",
    about: "a half-sent ConnectRequest is held until the sessionless-connection expiry (10 s rounded up to the expirer's 10 s interval)",
    async run(t) {
      await t.wire("half a ConnectRequest: closed between 10 and 20 s later", [wait(connectFrame().subarray(0, 10), 21_000)], [10_000, 20_000]);
    },
  },
];

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
