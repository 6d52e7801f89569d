// @ts-check
/**
 * The two ZooKeeper error tests every piece of client code needs: is this error that code, and
 * run an idempotent operation again after CONNECTIONLOSS (the operation's outcome is unknown,
 * so only operations that are safe to repeat are retried blindly).
 */
import { Code, KeeperException } from "zksim";

/**
 * @param {unknown} err
 * @param {number} code a `Code` value
 */
export function hasCode(err, code) {
  return err instanceof KeeperException && err.code === code;
}

/**
 * Runs `op` until it does not fail with CONNECTIONLOSS, sleeping 50 ms on `node` between tries.
 * @template T
 * @param {import("zksim").ClientNode} node
 * @param {() => Promise<T>} op
 * @returns {Promise<T>}
 */
export async function retrying(node, op) {
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!hasCode(err, Code.CONNECTIONLOSS)) throw err;
    }
    await node.sleepMs(50);
  }
}
