/**
 * The connect string and the host list (`ConnectStringParser`, `StaticHostProvider`,
 * docs/zookeeper.md §3.5 and *From Paxos to ZooKeeper* §7.3.2).
 *
 * - `"s1:2181,s2/app"`: hosts separated by commas, port optional (default 2181), an optional
 *   chroot after the first `/` (`"/"` alone means none). In the simulator a host is a node id.
 * - The list is shuffled **once**, with the client's seeded random stream.
 * - `next()` walks the list round-robin. Coming back to the host of the last successful
 *   connection (or to the first host tried, before any success) means a full cycle failed:
 *   the caller then pauses `spinDelayMs` (1000 ms) before the attempt — never before the
 *   very first attempt.
 */
import type { RandomStream } from "../../world/index.js";
import { UserInputError } from "../../base/errors.js";
import { CLIENT_PORT } from "../proto/wire.js";
import { validatePath } from "../proto/path-utils.js";

export interface HostAddress {
  host: string;
  port: number;
}

export interface ConnectString {
  hosts: HostAddress[];
  /** Undefined when there is no chroot. */
  chroot: string | undefined;
}

export function parseConnectString(connectString: string): ConnectString {
  const slash = connectString.indexOf("/");
  let chroot: string | undefined;
  let hostPart = connectString;
  if (slash >= 0) {
    const path = connectString.substring(slash);
    hostPart = connectString.substring(0, slash);
    if (path.length > 1) {
      const problem = validatePath(path);
      if (problem !== null) throw new UserInputError(`connect string "${connectString}": invalid chroot ${path}: ${problem}`);
      chroot = path;
    }
  }
  const hosts = hostPart
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h.length > 0)
    .map((h) => parseHost(h, connectString));
  if (hosts.length === 0) throw new UserInputError(`connect string "${connectString}" names no server`);
  return { hosts, chroot };
}

function parseHost(spec: string, whole: string): HostAddress {
  const colon = spec.lastIndexOf(":");
  if (colon < 0 || colon === spec.length - 1) return { host: colon < 0 ? spec : spec.substring(0, colon), port: CLIENT_PORT };
  const portText = spec.substring(colon + 1);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new UserInputError(`connect string "${whole}": bad port "${portText}"`);
  return { host: spec.substring(0, colon), port };
}

export const SPIN_DELAY_MS = 1000;

export class StaticHostProvider {
  readonly serverAddresses: readonly HostAddress[];
  private currentIndex = -1;
  private lastIndex = -1;

  constructor(hosts: readonly HostAddress[], rng: RandomStream) {
    this.serverAddresses = rng.shuffle(hosts);
  }

  get size(): number {
    return this.serverAddresses.length;
  }

  /** The next host, and whether a full cycle has failed (the caller pauses `SPIN_DELAY_MS`). */
  next(): { address: HostAddress; spin: boolean } {
    this.currentIndex = (this.currentIndex + 1) % this.serverAddresses.length;
    const spin = this.currentIndex === this.lastIndex;
    if (this.lastIndex === -1) this.lastIndex = 0; // no pause before the very first attempt
    return { address: this.serverAddresses[this.currentIndex]!, spin };
  }

  /** A session was established with the current host: the cycle now ends back at it. */
  onConnected(): void {
    this.lastIndex = this.currentIndex;
  }
}
