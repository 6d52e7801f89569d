/**
 * What protocol code (the ZooKeeper server and client, teaching protocols) sees of the kernel:
 * a node's context, its connection endpoints, its timers and disk, as narrow views of the
 * kernel's classes. The views are derived from those classes (`Pick`), so they follow their
 * signatures; they leave out the kernel's own handles and mutable internals — a context's
 * `sim` and `node`, an endpoint's `connection`, `side` and `handlers` — so protocol code cannot
 * reach past its node into the world.
 */
import type { NodeContext as KernelNodeContext } from "./node-context.js";
import type { Endpoint as KernelEndpoint } from "./network.js";

export type { TimerHandle } from "./node-context.js";
export type { NodeDisk, DiskResult } from "./disk.js";
export type { ConnectionHandlers, ConnectOptions, CloseReason } from "./network.js";

/** A node's context as a process uses it: clock, timers, rng, network, disk, trace annotations. */
export type NodeContext = Pick<
  KernelNodeContext,
  | "id"
  | "incarnation"
  | "alive"
  | "disk"
  | "rng"
  | "nowUs"
  | "nowMs"
  | "setTimer"
  | "setTimerMs"
  | "cancelTimer"
  | "send"
  | "listen"
  | "unlisten"
  | "connect"
  | "addressOf"
  | "annotate"
  | "deferred"
  | "sleepMs"
  | "traceCounter"
>;

/** One end of a connection as a process uses it: who is at either end, whether it is open, send, close. */
export type Endpoint = Pick<KernelEndpoint, "id" | "localId" | "remoteId" | "send" | "close"> & Readonly<Pick<KernelEndpoint, "open" | "closed" | "remoteAddress">>;
