/**
 * The protocols the stepping interface can run, by their `zksim learn` name. A protocol joins
 * with one adapter file and one line here.
 */
import { UserInputError } from "../../sim/errors.js";
import type { ProtocolAdapter, World } from "./types.js";
import { zabAdapter } from "./zab/zab-adapter.js";
import { paxosAdapter } from "./paxos/paxos-adapter.js";
import { multiPaxosAdapter } from "./multipaxos/multipaxos-adapter.js";

export const ADAPTERS: ReadonlyMap<string, ProtocolAdapter<World>> = new Map<string, ProtocolAdapter<World>>([
  ["zab", zabAdapter as unknown as ProtocolAdapter<World>],
  ["paxos", paxosAdapter as unknown as ProtocolAdapter<World>],
  ["multipaxos", multiPaxosAdapter as unknown as ProtocolAdapter<World>],
]);

/** Protocols the teaching UI names but that have no adapter yet. */
export const PLANNED_PROTOCOLS = ["2pc", "3pc"] as const;

export function adapterFor(protocol: string): ProtocolAdapter<World> {
  const a = ADAPTERS.get(protocol);
  if (a !== undefined) return a;
  if ((PLANNED_PROTOCOLS as readonly string[]).includes(protocol)) throw new UserInputError(`learn: ${protocol} has no stepping adapter yet (available: ${[...ADAPTERS.keys()].join(", ")})`);
  throw new UserInputError(`learn: unknown protocol "${protocol}" (known: ${[...ADAPTERS.keys(), ...PLANNED_PROTOCOLS].join(", ")})`);
}
