/**
 * The protocols the stepping interface can run, by their `zksim learn` name. A protocol joins
 * with one adapter file and one line here.
 */
import { UserInputError } from "../sim/errors.js";
import type { ProtocolAdapter, World } from "./types.js";
import { zabAdapter } from "./zab/zab-adapter.js";
import { threePcAdapter, twoPcAdapter } from "./commit/commit-adapter.js";
import { paxosAdapter } from "./paxos/paxos-adapter.js";
import { multiPaxosAdapter } from "./multipaxos/multipaxos-adapter.js";

export const ADAPTERS: ReadonlyMap<string, ProtocolAdapter<World>> = new Map<string, ProtocolAdapter<World>>([
  ["zab", zabAdapter as unknown as ProtocolAdapter<World>],
  ["paxos", paxosAdapter as unknown as ProtocolAdapter<World>],
  ["multipaxos", multiPaxosAdapter as unknown as ProtocolAdapter<World>],
  ["2pc", twoPcAdapter as unknown as ProtocolAdapter<World>],
  ["3pc", threePcAdapter as unknown as ProtocolAdapter<World>],
]);

export function adapterFor(protocol: string): ProtocolAdapter<World> {
  const a = ADAPTERS.get(protocol);
  if (a !== undefined) return a;
  throw new UserInputError(`learn: unknown protocol "${protocol}" (known: ${[...ADAPTERS.keys()].join(", ")})`);
}
