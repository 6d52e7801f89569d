/**
 * The dumping four-letter words of `zksim serve` (`cons`, `crst`, `dump`, `wchs`, `wchc`,
 * `wchp`) in 3.8.0's formats, from the simulated server's sessions, ephemerals and watches,
 * gated by the whitelist; and the Java hash orders they (and a closing session) follow, checked
 * against what the real 3.8.0 server answered (conformance/golden/ephemeral-order.json). The
 * follower's and the leader's `dump` shapes are those a real 3-member 3.8.0 ensemble printed on
 * this machine (`Global Sessions(1):\n0x…\t10000ms` on a follower, `Session Sets` on the leader).
 */
import { afterEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { fourLetterWhitelist, settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { connectOverTcp, type TcpClient } from "../../src/runtime/tcp-client.js";
import { CreateMode, EventType, Ids, KeeperState } from "../../src/zk/proto/records.js";
import { JavaHashSet, inJavaConcurrentHashMapOrder, javaLongHashCode } from "../../src/zk/server/java-hash-set.js";
import { javaDateString, javaHex } from "../../src/serve/four-letter-dumps.js";
import { readGolden } from "../../src/conformance/suite.js";
import { fourLetterWord, leaderServing } from "./raw-zk-client.js";

const GOLDEN_DIR = fileURLToPath(new URL("../../conformance/golden/", import.meta.url));
const NAMES = ["x1", "eph-a", "eph-c", "eph-b", "eph-d"];

let session: ServeSession | undefined;
const clients: TcpClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await Promise.race([c.close(), new Promise((r) => setTimeout(r, 1000))]).then(() => c.abandon());
  await session?.close();
  session = undefined;
});

async function serve(servers: number, whitelist?: string): Promise<ServeSession> {
  const s = settingsFromFlags(servers, 0, 2181);
  session = await startServe({ settings: { ...s, members: s.members.map((m) => ({ ...m, clientPort: 0 })), fourLetterWords: fourLetterWhitelist(whitelist) }, seed: 1, out: () => {} });
  return session;
}

function client(port: number, events: string[] = []): Promise<TcpClient> {
  return new Promise((resolve) => {
    const c = connectOverTcp({
      connectString: `127.0.0.1:${port}`,
      sessionTimeoutMs: 10_000,
      seed: clients.length + 1,
      watcher: (e) => {
        if (e.type === EventType.None && e.state === KeeperState.SyncConnected) resolve(c);
        else if (e.type !== EventType.None) events.push(`${e.type} ${e.path}`);
      },
    });
    clients.push(c);
  });
}

const hex = (c: TcpClient) => javaHex(c.zk.getSessionId());

describe("serve: cons, crst, dump, wchs, wchc, wchp", () => {
  it("answer in 3.8.0's formats from the simulated server's view of each connection (N=1)", async () => {
    const s = await serve(1, "*");
    const port = s.clientPorts.get("s1")!;
    const a = await client(port);
    const events: string[] = [];
    const w = await client(port, events);
    for (const n of NAMES) await a.zk.create(`/${n}`, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    for (const n of NAMES) await w.zk.exists(`/${n}`, true);
    await w.zk.getChildren("/", true);

    const cons = await fourLetterWord(port, "cons");
    const lineOf = (c: TcpClient) => cons.split("\n").find((l) => l.includes(`sid=0x${hex(c)},`));
    // a: connect + 5 creates in, as many answers out; its last op a create (cxid 5, zxid 7).
    expect(lineOf(a)).toMatch(new RegExp(`^ /127\\.0\\.0\\.1:\\d+\\[1\\]\\(queued=0,recved=6,sent=6,sid=0x${hex(a)},lop=CREA,est=\\d+,to=10000,lcxid=0x5,lzxid=0x7,lresp=\\d+,llat=\\d+,minlat=0,avglat=\\d+,maxlat=\\d+\\)$`));
    expect(lineOf(w)).toMatch(/,lop=GETC,.*,lcxid=0x6,lzxid=0x7,/);
    expect(cons).toMatch(/\n \/127\.0\.0\.1:\d+\[0\]\(queued=0,recved=1,sent=0\)\n/); // the asking connection
    expect(cons.endsWith(")\n\n")).toBe(true);

    expect(await fourLetterWord(port, "wchs")).toBe("1 connections watching 5 paths\nTotal watches:5\n");
    const ownOrder = hashOrder(NAMES.map((n) => `/${n}`));
    expect(await fourLetterWord(port, "wchc")).toBe(`0x${hex(w)}\n${ownOrder.map((p) => `\t${p}\n`).join("")}\n`);
    expect(await fourLetterWord(port, "wchp")).toBe(ownOrder.map((p) => `${p}\n\t0x${hex(w)}\n`).join("") + "\n");

    const dump = await fourLetterWord(port, "dump");
    expect(dump).toMatch(/^SessionTracker dump:\nSession Sets \(\d+\)\/\(2\):\n(\d+ expire at \w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC 2026:\n(\t0x[0-9a-f]+\n)*)+ephemeral nodes dump:\n/);
    expect(dump).toContain(`ephemeral nodes dump:\nSessions with Ephemerals (1):\n0x${hex(a)}:\n${ownOrder.map((p) => `\t${p}\n`).join("")}Connections dump:\nConnections Sets (`);
    expect(dump).toMatch(new RegExp(`\\tip: /127\\.0\\.0\\.1:\\d+ sessionId: 0x${hex(a)}\\n`));

    expect(await fourLetterWord(port, "crst")).toBe("Connection stats reset.\n");
    expect(lineOfAfterReset(await fourLetterWord(port, "cons"), hex(a))).toMatch(/\[1\]\(queued=0,recved=0,sent=0,sid=0x[0-9a-f]+,lop=NA,est=\d+,to=10000,lzxid=0xffffffffffffffff,lresp=0,llat=0,minlat=0,avglat=0,maxlat=0\)$/);

    // a closes: its ephemerals go in its set's clone order (what the real server did).
    await a.close();
    await w.zk.sync("/");
    await w.zk.exists("/");
    const cloneOrder = [...hashSetOf(NAMES.map((n) => `/${n}`)).clone()];
    expect(events).toEqual([`2 ${cloneOrder[0]}`, "4 /", ...cloneOrder.slice(1).map((p) => `2 ${p}`)]);
  }, 30_000);

  it("are gated by 4lw.commands.whitelist (default: srvr only)", async () => {
    const s = await serve(1);
    const port = s.clientPorts.get("s1")!;
    for (const word of ["cons", "crst", "dump", "wchs", "wchc", "wchp"]) {
      expect(await fourLetterWord(port, word)).toBe(`${word} is not executed because it is not in the whitelist.\n`);
    }
  });

  it("dump on a follower lists the global sessions with their timeouts, on the leader the expiry buckets (N=3)", async () => {
    const s = await serve(3, "dump");
    const leader = await leaderServing(s);
    const follower = ["s1", "s2", "s3"].find((n) => n !== leader)!;
    const c = await client(s.clientPorts.get(follower)!);
    await c.zk.create("/e", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    expect(await fourLetterWord(s.clientPorts.get(follower)!, "dump")).toMatch(new RegExp(`^SessionTracker dump:\\nGlobal Sessions\\(1\\):\\n0x${hex(c)}\\t10000ms\\nephemeral nodes dump:\\nSessions with Ephemerals \\(1\\):\\n0x${hex(c)}:\\n\\t/e\\nConnections dump:\\n`));
    expect(await fourLetterWord(s.clientPorts.get(leader)!, "dump")).toMatch(new RegExp(`^SessionTracker dump:\\nSession Sets \\(\\d+\\)/\\(1\\):\\n(.*\\n)*1 expire at [^\\n]+:\\n\\t0x${hex(c)}\\n`));
  }, 30_000);
});

function lineOfAfterReset(cons: string, sessionHex: string): string | undefined {
  return cons.split("\n").find((l) => l.includes(`sid=0x${sessionHex},`));
}

function hashSetOf(items: string[]): JavaHashSet {
  const set = new JavaHashSet();
  for (const x of items) set.add(x);
  return set;
}

function hashOrder(items: string[]): string[] {
  return [...hashSetOf(items)];
}

describe("Java hash orders of a session's ephemerals (checked against the real 3.8.0)", () => {
  const golden = readGolden(GOLDEN_DIR, "ephemeral-order");
  const answer = (step: string) => {
    const s = golden.steps.find((x) => x.step === step)!;
    return "ok" in s ? s.ok : undefined;
  };
  const paths = NAMES.map((n) => `$root/${n}`.replace("$root", "/conformance-ephemeral-order"));
  const norm = (xs: string[]) => xs.map((p) => p.replace("/conformance-ephemeral-order", "$root"));

  it("the set's own order is what dump printed; its clone's is getEphemerals' and the delete order", () => {
    const set = hashSetOf(paths);
    expect(norm([...set])).toEqual(answer("dump: a's ephemerals"));
    expect(norm([...set.clone()])).toEqual(answer("getEphemerals a"));
    const deleted = (answer("events when a closes") as { type: string; path: string }[]).filter((e) => e.type === "NodeDeleted").map((e) => e.path);
    expect(norm([...set.clone()])).toEqual(deleted);
    // The three orders differ here, so the test tells the models apart.
    expect([...set]).not.toEqual([...set.clone()]);
    expect([...set.clone()]).not.toEqual(paths);
    expect([...set.clone()]).not.toEqual([...paths].sort());
  });

  it("a clone is sized for its count: a grown set that lost entries clones into a smaller table", () => {
    const set = new JavaHashSet();
    for (let i = 0; i < 40; i++) set.add(`k${i}`); // the table doubles to 64
    for (let i = 1; i < 40; i++) if (i !== 3) set.delete(`k${i}`);
    expect([...set]).toEqual(["k0", "k3"]);
    expect([...set.clone()]).toEqual(["k3", "k0"]); // a 4-bucket table: tableSizeFor((int)(2 / 0.75 + 1))
  });

  it("Long.hashCode, ConcurrentHashMap bin order, Date.toString", () => {
    expect(javaLongHashCode(0x100013aa1a80000n)).toBe(0xa1a80000 ^ 0x0100013a); // low half ^ high half, as an int
    expect(javaLongHashCode(-1n)).toBe(0);
    expect(inJavaConcurrentHashMapOrder([17n, 1n, 16n], javaLongHashCode)).toEqual([16n, 17n, 1n]); // bins 1, 1, 0: bin 0 first, then bin 1 in insertion order
    expect(javaDateString(1_767_225_630_000)).toBe("Thu Jan 01 00:00:30 UTC 2026");
    expect(javaHex(-1n)).toBe("ffffffffffffffff");
  });
});
