/**
 * The simulated half of every real client connection, and the one way the outside world's
 * client traffic enters the simulation: `inject` takes a `ServedInput` — a connection opened
 * (from gateway node `cN` to `sN`'s client port), a frame the client sent, the client closing —
 * and applies it at the current virtual time. `zksim serve` (client-gateway.ts) injects what
 * real sockets deliver; the "served" workload (src/scenario/workloads/served.ts) injects what a
 * recording holds, through this same function, so a replay takes exactly the live code path.
 *
 * Each effective input is reported to `onInput` with its virtual time and the simulator's event
 * count at that moment (its position in the event sequence): that is the recording. An input
 * that changes nothing (a frame or close after the simulated connection closed) is neither
 * applied nor reported.
 *
 * Invariants: per connection, frames enter in the order injected; frames injected before the
 * simulated connection is established wait, in order, and go out when it opens; deterministic
 * (no I/O, no wall clock) — what happens outside is the `LinkSink` of a connection, if any.
 */
import type { CloseReason, Endpoint } from "../sim/network.js";
import { CLIENT_PORT, type ZkPacket } from "../zk/proto/wire.js";
import type { ServeEnsemble } from "./serve-ensemble.js";

/** Frames going into the simulation, labelled for the trace. */
const CLIENT_FRAME = "real-client";

/** One input from the outside world; `conn` numbers the real connections of a session from 1. */
export type ServedInput =
  /** `address`: the real client's IP, which the simulated server sees it connect from (the `ip` scheme); default the gateway node's. */
  | { kind: "connect"; conn: number; server: string; address?: string }
  | { kind: "frame"; conn: number; bytes: Uint8Array }
  | { kind: "close"; conn: number };

/** Where a connection's simulated side speaks to the outside (live: the real socket). */
export interface LinkSink {
  onMessage(bytes: Uint8Array): void;
  onClose(reason: CloseReason): void;
}

interface Link {
  endpoint: Endpoint;
  /** Frames injected before the simulated connection opened. */
  waiting: Uint8Array[];
  sink: LinkSink | undefined;
}

export type InputListener = (input: ServedInput, atUs: number, position: number) => void;

export class ClientLinks {
  private readonly links = new Map<number, Link>();

  constructor(
    private readonly ensemble: Pick<ServeEnsemble, "sim" | "settings" | "gatewayOf">,
    private readonly onInput: InputListener = () => undefined,
  ) {}

  /** Applies one input now. A `connect` of a connection already known is a programming error. */
  inject(input: ServedInput, sink?: LinkSink): void {
    const { sim } = this.ensemble;
    const atUs = sim.nowUs;
    const position = sim.eventCount;
    switch (input.kind) {
      case "connect": {
        if (this.links.has(input.conn)) throw new Error(`connection ${input.conn} is already open`);
        this.onInput(input, atUs, position);
        this.open(input.conn, input.server, input.address, sink);
        return;
      }
      case "frame": {
        const link = this.links.get(input.conn);
        if (link === undefined || link.endpoint.closed) return;
        this.onInput(input, atUs, position);
        if (link.endpoint.open) link.endpoint.send({ kind: CLIENT_FRAME, bytes: input.bytes } satisfies ZkPacket);
        else link.waiting.push(input.bytes);
        return;
      }
      case "close": {
        const link = this.links.get(input.conn);
        if (link === undefined) return;
        this.links.delete(input.conn);
        if (link.endpoint.closed) return;
        this.onInput(input, atUs, position);
        link.endpoint.close();
        return;
      }
    }
  }

  /** Whether `conn` has a simulated connection not yet closed by the client. */
  has(conn: number): boolean {
    return this.links.has(conn);
  }

  /** The simulated connection's endpoint id (what the simulated server's ServerCnxn is keyed by). */
  endpointId(conn: number): number | undefined {
    return this.links.get(conn)?.endpoint.id;
  }

  /** The simulated half: a connection from `cN` to `sN`'s client port. */
  private open(conn: number, server: string, address: string | undefined, sink: LinkSink | undefined): void {
    const member = this.ensemble.settings.members.find((m) => m.node === server);
    if (member === undefined) throw new Error(`no member ${server}`);
    const ctx = this.ensemble.sim.node(this.ensemble.gatewayOf(member)).context!;
    // The handlers run later (the kernel opens and closes connections in events of their own).
    const link: Omit<Link, "endpoint"> = { waiting: [], sink };
    const endpoint = ctx.connect(server, CLIENT_PORT, {
      onOpen: (ep) => {
        for (const bytes of link.waiting) ep.send({ kind: CLIENT_FRAME, bytes } satisfies ZkPacket);
        link.waiting = [];
      },
      onMessage: (_ep, message) => link.sink?.onMessage((message as ZkPacket).bytes),
      onClose: (_ep, reason: CloseReason) => link.sink?.onClose(reason),
    }, address !== undefined ? { sourceAddress: address } : {});
    this.links.set(conn, Object.assign(link, { endpoint }));
  }
}
