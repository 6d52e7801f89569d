/**
 * Conformance transcripts: what an op script saw, in a form two servers can be compared by.
 *
 * A script (scripts.ts) runs through the project's TCP client (runtime/tcp-client.ts) against
 * a server, and every step it records becomes one transcript line: the op's label and either
 * its value or its error code's name. Values are normalised so that two correct servers give
 * equal lines:
 *   - zxids (czxid, mzxid, pzxid, lastZxid) are written relative to the script's base zxid (the
 *     czxid of its root node), as `z+N`: two servers agree on zxid order and gaps, not on epochs;
 *   - ctime and mtime are `t` (wall clocks differ), but whether mtime equals ctime is kept;
 *   - session ids (ephemeralOwner, digest identities) become the script's client aliases;
 *   - data is text when it decodes as UTF-8, else hex;
 *   - the script's root path is `$root`;
 *   - in config text (`server.N=…` lines, 3.5+ dynamic reconfiguration) each member's ports are
 *     named (`client1`, `quorum1`, `election1`: the servers' ports differ between two ensembles)
 *     and `version=<hex>`, a zxid, is relative as zxids are.
 * Orders are kept as the server gave them: a list the server leaves to a hash set (getChildren)
 * is compared as given, since code that assumes it sorted is a classic user bug.
 */
import type { Stat } from "../zk/proto/records.js";

/** One step of a transcript: `ok` holds the normalised value, `err` the error code's name. */
export type TranscriptStep = { step: string; ok: unknown } | { step: string; err: string };

export interface Transcript {
  script: string;
  steps: TranscriptStep[];
}

/** What normalisation needs to know: the base zxid, the sessions' aliases and the script's root. */
export interface Normaliser {
  baseZxid: bigint;
  sessions: Map<bigint, string>;
  /** The script's root path, written `$root` (a rerun on one server uses another root). */
  root: string;
  /** An ensemble's ports by their names in config text (`25001` → `quorum1`); empty for a single server. */
  ports: ReadonlyMap<number, string>;
}

/** Config text with its ports named and its version relative (see the header); other text as it is. */
function normaliseConfigText(text: string, n: Normaliser): string {
  if (!/^server\.\d+=/m.test(text)) return text;
  return text
    .replace(/:(\d+)(?=[:;\n]|$)/gm, (whole, port: string) => {
      const name = n.ports.get(Number(port));
      return name === undefined ? whole : `:${name}`;
    })
    .replace(/^version=([0-9a-f]+)$/m, (_, hex: string) => `version=${relativeZxid(BigInt(`0x${hex}`), n)}`);
}

export function relativeZxid(zxid: bigint, n: Normaliser): string {
  const d = zxid - n.baseZxid;
  return d >= 0n ? `z+${d}` : `z${d}`;
}

function isStat(v: unknown): v is Stat {
  return typeof v === "object" && v !== null && typeof (v as Stat).czxid === "bigint" && typeof (v as Stat).pzxid === "bigint";
}

export function normaliseStat(s: Stat, n: Normaliser): Record<string, unknown> {
  return {
    czxid: s.czxid === 0n ? 0 : relativeZxid(s.czxid, n),
    mzxid: s.mzxid === 0n ? 0 : relativeZxid(s.mzxid, n),
    pzxid: s.pzxid === 0n ? 0 : relativeZxid(s.pzxid, n),
    ctime: "t",
    mtime: s.mtime === s.ctime ? "=ctime" : "t",
    version: s.version,
    cversion: s.cversion,
    aversion: s.aversion,
    ephemeralOwner: s.ephemeralOwner === 0n ? 0 : (n.sessions.get(s.ephemeralOwner) ?? "other-session"),
    dataLength: s.dataLength,
    numChildren: s.numChildren,
  };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function bytesText(b: Uint8Array): string {
  try {
    return decoder.decode(b);
  } catch {
    return `hex:${Buffer.from(b).toString("hex")}`;
  }
}

/** Normalises any value an op resolves with (stats, bytes, lists, op results, records). */
export function normalise(v: unknown, n: Normaliser): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return n.sessions.get(v) ?? relativeZxid(v, n);
  if (typeof v === "string") return normaliseConfigText(v.split(n.root).join("$root"), n);
  if (v instanceof Uint8Array) return normaliseConfigText(bytesText(v), n);
  if (Array.isArray(v)) return v.map((x) => normalise(x, n));
  if (isStat(v)) return normaliseStat(v, n);
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = normalise(x, n);
    return out;
  }
  return v;
}

/** A step's difference between the golden transcript and another server's. */
export interface StepDifference {
  script: string;
  index: number;
  step: string;
  expected: TranscriptStep | undefined;
  actual: TranscriptStep | undefined;
}

/** Compares two transcripts of one script step by step (by position: scripts are sequential). */
export function compareTranscripts(golden: Transcript, actual: Transcript): { total: number; differences: StepDifference[] } {
  const total = Math.max(golden.steps.length, actual.steps.length);
  const differences: StepDifference[] = [];
  for (let i = 0; i < total; i++) {
    const e = golden.steps[i];
    const a = actual.steps[i];
    if (JSON.stringify(e) !== JSON.stringify(a)) differences.push({ script: golden.script, index: i, step: e?.step ?? a?.step ?? "?", expected: e, actual: a });
  }
  return { total, differences };
}
