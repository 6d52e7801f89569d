/**
 * Which seeds a sweep runs: `--from S --seeds N` names the range S … S+N−1, and `--shard i/n`
 * keeps the seeds whose index in that range is ≡ i−1 (mod n). The shards 1/n … n/n of one
 * range are therefore disjoint and together cover it, whatever machine runs which shard, so a
 * batch system can split a sweep without coordination.
 */
import { UserInputError } from "../../sim/errors.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** Parses "i/n" (1 ≤ i ≤ n); anything else is a UserInputError naming the command. */
export function parseShard(text: string, command: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (m === null) throw new UserInputError(`${command}: --shard must look like i/n (e.g. 2/4), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(count) || count < 1) throw new UserInputError(`${command}: --shard ${text}: the shard count must be at least 1`);
  if (!Number.isSafeInteger(index) || index < 1 || index > count) {
    throw new UserInputError(`${command}: --shard ${text}: the shard index must be between 1 and ${count}`);
  }
  return { index, count };
}

/** The seeds of one shard of `from … from+n−1`, ascending. */
export function shardSeeds(from: number, n: number, shard: Shard = { index: 1, count: 1 }): number[] {
  const seeds: number[] = [];
  for (let k = shard.index - 1; k < n; k += shard.count) seeds.push(from + k);
  return seeds;
}
