import { describe, expect, it } from "vitest";
import { KeeperException, answeredKeeperException } from "../../../src/zk/client/keeper-exception.js";
import { Code } from "../../../src/zk/proto/error-code.js";

/** What a caller can see of an error: its type, own enumerable fields, message, stack, printing. */
function observed(e: KeeperException): unknown {
  return {
    keeper: e instanceof KeeperException,
    error: e instanceof Error,
    keys: Object.keys(e),
    json: JSON.stringify(e),
    message: e.message,
    stack: e.stack,
    text: String(e),
    code: e.code,
    codeName: e.codeName,
    path: e.path,
    results: e.results,
    clientSide: e.clientSide,
    recoverable: e.recoverable,
    sessionFatal: e.sessionFatal,
    constructor: e.constructor,
  };
}

describe("answeredKeeperException", () => {
  it("looks like the KeeperException the constructor makes for a code a server answered", () => {
    for (const [code, path] of [[Code.NONODE, "/a/b"], [Code.CONNECTIONLOSS, undefined], [Code.SESSIONEXPIRED, "/"], [Code.NODEEXISTS, ""]] as const) {
      expect(observed(answeredKeeperException(code, path))).toEqual(observed(new KeeperException(code, path)));
    }
  });

  it("takes an assigned message or stack as its own, as a native error does", () => {
    const e = answeredKeeperException(Code.NONODE, "/x");
    const n = new KeeperException(Code.NONODE, "/x");
    for (const x of [e, n]) {
      x.message = "changed";
      x.stack = "a stack";
    }
    expect([e.message, e.stack, Object.keys(e)]).toEqual([n.message, n.stack, Object.keys(n)]);
    expect(answeredKeeperException(Code.NONODE, "/x").message).toBe("KeeperErrorCode = NONODE for /x");
  });
});
