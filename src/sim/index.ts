/** The kernel's public surface. */
export { Simulator, SimNode, type SimulatorOptions, type RunLimits, type StopReason, type Deferred, type NodeStatus } from "./simulator.js";
export { NodeContext, TimerHandle, type Process, type ProcessFactory } from "./node-context.js";
export { Network, Endpoint, Connection, DEFAULT_NETWORK, messageType, type NetworkConfig, type LinkConfig, type ConnectionHandlers, type ConnectOptions, type CloseReason } from "./network.js";
export { Disk, NodeDisk, TornRecord, isTorn, DEFAULT_DISK, type DiskConfig, type DiskResult } from "./disk.js";
export { RpcClient, RpcServer, rpcTruth, isRpcReply, isRpcRequest, type Outcome, type RpcResponder } from "./request.js";
export { parseFaultSchedule, installFaults, applyFault, FAULT_KINDS, type Fault, type FaultAction } from "./faults.js";
export { Trace, describeEvent, traceEventToJsonLine, canonicalJson, hashString, formatUs, type TraceEvent, type TraceListener } from "./trace.js";
export { Rng } from "./rng.js";
export { DecisionTape, normalizeSimplify, type SimplifyRange, type StreamDraws } from "./decision-tape.js";
export { EventQueue } from "./event-queue.js";
export { UserInputError, isUserInputError, invariant, unreachable } from "./errors.js";
export { msToUs, usToMs, US_PER_MS } from "./time.js";
