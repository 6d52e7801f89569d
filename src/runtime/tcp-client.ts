/**
 * The project's ZooKeeper client over real TCP: `connectOverTcp({ connectString:
 * "127.0.0.1:2181", sessionTimeoutMs })` gives the same `ZooKeeper` promise API the recipes and
 * scenario scripts use in the simulator, talking to a real ZooKeeper 3.8 ensemble or to
 * `zksim serve` (tcp-node-context.ts). The conformance suite runs its op scripts through it
 * against both (docs/conformance.md).
 */
import { createClient, type ClientOptions, type ZooKeeper } from "../zk/client/zoo-keeper.js";
import { TcpNodeContext, type TcpNodeContextOptions } from "./tcp-node-context.js";

export interface TcpClientOptions extends ClientOptions, TcpNodeContextOptions {}

export interface TcpClient {
  readonly zk: ZooKeeper;
  /** Closes the session (as `zk.close()`), then every socket and timer, so the process can exit. */
  close(): Promise<void>;
  /** `host:port` of the server the client is connected to now, if any. */
  connectedTo(): string | undefined;
  /** Drops the sockets and timers without closing the session (the session then expires on the server). */
  abandon(): void;
}

export function connectOverTcp(options: TcpClientOptions): TcpClient {
  const ctx = new TcpNodeContext(options);
  const zk = createClient(ctx, options);
  return {
    zk,
    async close() {
      try {
        await zk.close();
      } finally {
        ctx.shutdown();
      }
    },
    connectedTo: () => ctx.connectedTo(),
    abandon() {
      ctx.shutdown();
    },
  };
}
