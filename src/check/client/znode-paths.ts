/**
 * Small vocabulary of the client checkers: znode paths as ZooKeeper joins and splits them, the
 * create modes' properties (by name, as `client-events.ts` reads them), and zxids as reports print
 * them. Shares no code with the client or the server.
 */
import type { CreateModeName } from "../../zk/proto/records.js";

/** `0x…` for reports. */
export function hex(z: bigint): string {
  return `0x${z.toString(16)}`;
}

/** Is this create mode one of the ephemeral ones? */
export function isEphemeralMode(mode: CreateModeName | undefined): boolean {
  return mode !== undefined && mode.startsWith("EPHEMERAL");
}

/** Is this create mode sequential? */
export function isSequentialMode(mode: CreateModeName | undefined): boolean {
  return mode !== undefined && mode.includes("SEQUENTIAL");
}

/** Is this create mode one whose node the server may remove on its own (container, TTL)? */
export function isReapableMode(mode: CreateModeName | undefined): boolean {
  return mode === "CONTAINER" || (mode !== undefined && mode.includes("TTL"));
}

/** `parent/child` as ZooKeeper joins them. */
export function childPath(parent: string, child: string): string {
  return parent === "/" ? `/${child}` : `${parent}/${child}`;
}

/** The parent of an absolute path ("/" for top-level nodes and for "/" itself). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** `path` and every ancestor up to "/". */
export function selfAndAncestors(path: string): string[] {
  const out = [path];
  for (let p = path; p !== "/"; ) {
    p = parentPath(p);
    out.push(p);
  }
  return out;
}
