/**
 * The world as a process sees it — clock, timers, a random stream, connections, datagrams, a
 * disk and trace annotations — as interfaces of their own (FoundationDB's INetwork and
 * IAsyncFile play this part there). Protocol code (src/zk/, src/protocols/) is written against
 * these and nothing else of the kernel; the layer lint holds it to that.
 *
 * Two implementations stand behind them: the simulator (src/sim/: virtual time, a simulated
 * network and disk, faults) and the real-time runtime (src/runtime/: the wall clock, `setTimeout`
 * and `node:net`, for the project's client against a real ZooKeeper). Both implement the
 * interfaces as declared, without casts.
 */
export type { NodeContext, Process, TimerHandle } from "./process.js";
export type { CloseReason, ConnectOptions, ConnectionHandlers, Endpoint } from "./network.js";
export { TornRecord, isTorn, type DiskResult, type NodeDisk } from "./disk.js";
export type { RandomStream } from "./random.js";
