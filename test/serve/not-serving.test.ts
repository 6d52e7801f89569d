/**
 * Connections to a member that is not serving, as a real 3.8.0 treats them (checked on this
 * machine against a 3-member ensemble with one member started, LOOKING): the TCP connection is
 * accepted and, once the first frame arrives, closed with a FIN ("ZooKeeperServer not running");
 * a crashed member has no listener, so serve resets. A follower that loses its leader closes its
 * clients' connections (Learner.shutdown → closeAllConnections) with a FIN too.
 */
import { describe, expect, it } from "vitest";
import net from "node:net";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { fourLetterWhitelist, settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { RawZkClient, leaderServing, serveFixture } from "./raw-zk-client.js";

const fx = serveFixture();

async function serve3(): Promise<ServeSession> {
  const s = settingsFromFlags(3, 0, 2181);
  fx.session = await startServe({ settings: { ...s, members: s.members.map((m) => ({ ...m, clientPort: 0 })), fourLetterWords: fourLetterWhitelist("*") }, seed: 1, out: () => {} });
  return fx.session;
}

/** Connects, sends one 44-byte frame, and reports how the connection ended. */
function firstFrameFate(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const seen: string[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on("connect", () => {
      seen.push("connected");
      const frame = Buffer.alloc(48);
      frame.writeInt32BE(44, 0);
      socket.write(frame);
    });
    socket.on("end", () => seen.push("fin"));
    socket.on("error", (err: NodeJS.ErrnoException) => seen.push(err.code ?? "error"));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(seen.join(" "));
    });
  });
}

/** How an open client connection ends (a FIN or a reset). */
function fate(c: RawZkClient): Promise<string> {
  const socket = c.socket;
  return new Promise((resolve) => {
    const seen: string[] = [];
    socket.on("end", () => seen.push("fin"));
    socket.on("error", (err: NodeJS.ErrnoException) => seen.push(err.code ?? "error"));
    socket.on("close", () => resolve(seen.join(" ")));
  });
}

describe("serve: members that are not serving", () => {
  it("a member without a quorum accepts the connection and closes it with a FIN; a crashed one resets it (N=3)", async () => {
    const s = await serve3();
    await leaderServing(s);
    s.command("crash s2");
    s.command("crash s3");
    expect(await firstFrameFate(s.clientPorts.get("s1")!)).toBe("connected fin");
    expect(await firstFrameFate(s.clientPorts.get("s2")!)).toBe("connected ECONNRESET");
  }, 20_000);

  it("a follower whose leader crashes closes its clients' connections with a FIN (N=3)", async () => {
    const s = await serve3();
    const leader = await leaderServing(s);
    const follower = ["s1", "s2", "s3"].find((n) => n !== leader)!;
    const c = await RawZkClient.connect(s.clientPorts.get(follower)!);
    fx.clients.push(c);
    c.sendConnect(0n, new Uint8Array(16));
    expect((await c.next("connect")).kind).toBe("connect");
    const ended = fate(c);
    s.command(`crash ${leader}`);
    expect(await ended).toBe("fin");
  }, 20_000);
});
