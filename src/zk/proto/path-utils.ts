/**
 * ZooKeeper path rules (`PathUtils.validatePath`, docs/zookeeper.md §1.1) and small path helpers,
 * shared by the client and the server as Java's `org.apache.zookeeper.common.PathUtils` is.
 *
 * Invariants:
 * - `validatePath` returns `null` for a valid path and otherwise the same reason text the Java
 *   server logs; the first failing rule wins, scanning left to right by UTF-16 code unit.
 * - `parentOf("/a")` is `"/"` (the public, client-facing parent). The Java server itself
 *   computes `path.substring(0, lastSlash)` (`""` for top-level nodes) and aliases `""` to the
 *   root; `javaParentOf` reproduces that for the request processors, where the key matters.
 */

/** The paths `delete` refuses with BADARGUMENTS (`DataTree.isSpecialPath`). */
export const SPECIAL_PATHS: ReadonlySet<string> = new Set(["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]);

export const ZOOKEEPER_PATH = "/zookeeper";
export const QUOTA_PATH = "/zookeeper/quota";
export const CONFIG_PATH = "/zookeeper/config";

export function isSpecialPath(path: string): boolean {
  return SPECIAL_PATHS.has(path);
}

/**
 * Validates `path` (for a sequential create the client validates `path + "1"`, which is what
 * `isSequential` does, so `/p/` is legal as a sequential prefix). Returns null when valid.
 */
export function validatePath(path: string, isSequential = false): string | null {
  return validateFullPath(isSequential ? path + "1" : path);
}

function validateFullPath(path: string): string | null {
  if (path.length === 0) return "Path length must be > 0";
  if (path.charAt(0) !== "/") return "Path must start with / character";
  if (path.length === 1) return null; // the root
  if (path.charAt(path.length - 1) === "/") return "Path must not end with / character";
  let last = "/";
  for (let i = 1; i < path.length; last = path.charAt(i), i++) {
    const c = path.charAt(i);
    const code = path.charCodeAt(i);
    const endsSegment = i + 1 === path.length || path.charAt(i + 1) === "/";
    if (code === 0) return `null character not allowed @${i}`;
    if (c === "/" && last === "/") return `empty node name specified @${i}`;
    if (c === "." && last === ".") {
      if (path.charAt(i - 2) === "/" && endsSegment) return `relative paths not allowed @${i}`;
    } else if (c === ".") {
      if (path.charAt(i - 1) === "/" && endsSegment) return `relative paths not allowed @${i}`;
    } else if (isInvalidCodeUnit(code)) {
      return `invalid character @${i}`;
    }
  }
  return null;
}

function isInvalidCodeUnit(code: number): boolean {
  return (
    (code > 0x0000 && code <= 0x001f) ||
    (code >= 0x007f && code <= 0x009f) ||
    (code >= 0xd800 && code <= 0xf8ff) ||
    (code >= 0xfff0 && code <= 0xffff)
  );
}

/** Client-facing parent: `/a/b` → `/a`, `/a` → `/`, `/` → `/`. */
export function parentOf(path: string): string {
  const lastSlash = path.lastIndexOf("/");
  if (lastSlash <= 0) return "/";
  return path.substring(0, lastSlash);
}

/** The Java server's parent string: `substring(0, lastSlash)`, so `/a` → `""` (root alias). */
export function javaParentOf(path: string): string {
  return path.substring(0, path.lastIndexOf("/"));
}

/** Last segment: `/a/b` → `b`, `/` → `""`. */
export function basename(path: string): string {
  return path.substring(path.lastIndexOf("/") + 1);
}

/** Joins a parent and a child name: (`/`, `a`) → `/a`, (`/p`, `a`) → `/p/a`. */
export function childPath(parent: string, child: string): string {
  return parent === "/" || parent === "" ? `/${child}` : `${parent}/${child}`;
}

/**
 * `String.format("%010d", n)` for a Java int: zero-padded to width 10 *including* the sign,
 * so −2147483648 prints as 11 characters (docs/zookeeper.md §1.3).
 */
export function formatSequence(n: number): string {
  const v = n | 0;
  if (v >= 0) return String(v).padStart(10, "0");
  return "-" + String(-v).padStart(9, "0");
}
