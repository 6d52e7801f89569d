import { describe, expect, it } from "vitest";
import { ZooKeeperSaslClient } from "../../../src/zk/client/sasl-client.js";
import { DigestMd5Server } from "../../../src/zk/server/digest-md5.js";

const USERS = new Map([["bob", "bobs-secret"]]);
const bytes = (fill: number) => (n: number) => new Uint8Array(n).fill(fill);

/** One exchange between the client and the server's DIGEST-MD5; `tamper` may alter the server's tokens. */
function exchange(password: string, tamper: (token: Uint8Array, step: number) => Uint8Array = (t) => t) {
  const client = new ZooKeeperSaslClient({ username: "bob", password }, bytes(7));
  const server = new DigestMd5Server(USERS, () => new Uint8Array(30).fill(3));
  let token: Uint8Array | null = client.initialToken();
  const steps = [];
  for (let step = 0; token !== null && step < 5; step++) {
    const s = server.evaluateResponse(token);
    steps.push(s.kind);
    // A failed step answers AUTHFAILED with no token: the client gets an empty one.
    token = client.respond(s.kind === "failed" ? new Uint8Array(0) : tamper(s.token, step));
  }
  return { client, steps };
}

describe("zk: client: SASL DIGEST-MD5 (ZooKeeperSaslClient)", () => {
  it("the right password: challenge, digest-response, rspauth checked — both sides complete", () => {
    const { client, steps } = exchange("bobs-secret");
    expect(steps).toEqual(["challenge", "complete"]);
    expect(client.state).toBe("COMPLETE");
  });

  it("a wrong password: the server fails the response, the client fails on the empty answer", () => {
    const { client, steps } = exchange("guessed");
    expect(steps).toEqual(["challenge", "failed"]);
    expect(client.state).toBe("FAILED");
  });

  it("a server whose rspauth does not prove the password fails the client", () => {
    const forged = Buffer.from(`rspauth=${"0".repeat(32)}`, "latin1");
    const { client, steps } = exchange("bobs-secret", (t, step) => (step === 1 ? forged : t));
    expect(steps).toEqual(["challenge", "complete"]);
    expect(client.state).toBe("FAILED");
    expect(client.failure).toMatch(/rspauth/);
  });

  it("a challenge without a nonce fails the client, and nothing is answered after the end", () => {
    const client = new ZooKeeperSaslClient({ username: "bob", password: "x" }, bytes(1));
    client.initialToken();
    expect(client.respond(Buffer.from('realm="zk-sasl-md5"', "latin1"))).toBeNull();
    expect(client.state).toBe("FAILED");
    expect(client.respond(Buffer.from('nonce="n"', "latin1"))).toBeNull();
  });
});
