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
  ["zab", zabAdapter],
  ["paxos", paxosAdapter],
  ["multipaxos", multiPaxosAdapter],
  ["2pc", twoPcAdapter],
  ["3pc", threePcAdapter],
]);

export function adapterFor(protocol: string): ProtocolAdapter<World> {
  const a = ADAPTERS.get(protocol);
  if (a !== undefined) return a;
  throw new UserInputError(`learn: unknown protocol "${protocol}" (known: ${[...ADAPTERS.keys()].join(", ")})`);
}
