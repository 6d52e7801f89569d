/**
 * The state of the simulated network's directed links, apart from the channels that use it
 * (network.ts): per link whether it is cut, its clog (extra delay) and its delay, loss,
 * duplication and reordering settings. Partitions, cuts, heals, clogs and reconfigurations
 * change it, each recorded as one trace event naming the links it changed.
 *
 * Invariants: a link joins two distinct nodes; a link's settings always pass
 * `validateLinkConfig`; `healAll` leaves every link up, unclogged, on the scenario's settings.
 */
import { UserInputError } from "./errors.js";
import type { SimNode, Simulator } from "./simulator.js";

export interface LinkConfig {
  minDelayUs: number;
  maxDelayUs: number;
  /** Datagrams only: probability a datagram is lost. */
  lossRate: number;
  /** Datagrams only: probability a datagram is delivered twice. */
  duplicateRate: number;
  /** Datagrams only: probability a datagram gets an extra delay in [0, reorderExtraUs]. */
  reorderRate: number;
  reorderExtraUs: number;
}

export interface LinkState {
  cut: boolean;
  clogUs: number;
  config: LinkConfig;
}

export class LinkTable {
  /** Per source node index, per destination node index. */
  readonly rows: LinkState[][] = [];
  private readonly nodes: SimNode[] = [];

  constructor(
    private readonly sim: Simulator,
    private readonly defaults: LinkConfig,
  ) {}

  addNode(node: SimNode): void {
    this.nodes.push(node);
    const n = this.nodes.length;
    for (let i = 0; i < n; i++) {
      const row = (this.rows[i] ??= []);
      while (row.length < n) row.push({ cut: false, clogUs: 0, config: this.defaults });
    }
  }

  isCut(from: string, to: string): boolean {
    return this.link(this.sim.node(from), this.sim.node(to)).cut;
  }

  link(src: SimNode, dst: SimNode): LinkState {
    return this.rows[src.index]![dst.index]!;
  }

  /** Cuts links from every node of `from` to every node of `to` (and back unless oneWay). */
  cut(from: readonly string[], to: readonly string[], oneWay = false): void {
    const pairs = this.pairs(from, to, oneWay).filter(([a, b]) => !this.link(a, b).cut);
    for (const [a, b] of pairs) this.link(a, b).cut = true;
    this.sim.trace.record(this.sim.nowUs, "partition", "", undefined, undefined, undefined, {
      links: pairs.map(([a, b]) => `${a.id}>${b.id}`),
    });
  }

  /** Splits the nodes into groups; nodes not listed form one more group. */
  partition(groups: readonly (readonly string[])[]): void {
    const listed = new Set(groups.flat());
    const rest = this.nodes.filter((n) => !listed.has(n.id)).map((n) => n.id);
    const all = rest.length > 0 ? [...groups, rest] : groups;
    const pairs: [SimNode, SimNode][] = [];
    for (let i = 0; i < all.length; i++) {
      for (let j = 0; j < all.length; j++) {
        if (i !== j) pairs.push(...this.pairs(all[i]!, all[j]!, true));
      }
    }
    const newly = pairs.filter(([a, b]) => !this.link(a, b).cut);
    for (const [a, b] of newly) this.link(a, b).cut = true;
    this.sim.trace.record(this.sim.nowUs, "partition", "", undefined, undefined, undefined, {
      links: newly.map(([a, b]) => `${a.id}>${b.id}`),
    });
  }

  /** Heals the given links (both directions unless oneWay), or every link. */
  heal(from?: readonly string[], to?: readonly string[], oneWay = false): void {
    const pairs =
      from === undefined || to === undefined
        ? this.allPairs()
        : this.pairs(from, to, oneWay);
    const healed = pairs.filter(([a, b]) => this.link(a, b).cut);
    for (const [a, b] of healed) this.link(a, b).cut = false;
    this.sim.trace.record(this.sim.nowUs, "heal", "", undefined, undefined, undefined, {
      links: healed.map(([a, b]) => `${a.id}>${b.id}`),
    });
  }

  /**
   * Ends every network fault still in force: cut links heal, clogs clear, and links whose
   * delay/loss/duplication/reordering was changed get the scenario's settings back. Records
   * one heal / unclog / net.config event for what it changed, nothing when all was well.
   * Returns whether anything changed.
   */
  healAll(): boolean {
    const cut: string[] = [];
    const clogged: string[] = [];
    const reconfigured: string[] = [];
    for (const [a, b] of this.allPairs()) {
      const link = this.link(a, b);
      const name = `${a.id}>${b.id}`;
      if (link.cut) cut.push(name);
      if (link.clogUs > 0) clogged.push(name);
      if (link.config !== this.defaults) reconfigured.push(name);
      link.cut = false;
      link.clogUs = 0;
      link.config = this.defaults;
    }
    const now = this.sim.nowUs;
    if (cut.length > 0) this.sim.trace.record(now, "heal", "", undefined, undefined, undefined, { links: cut });
    if (clogged.length > 0) this.sim.trace.record(now, "unclog", "", undefined, 0, undefined, { links: clogged });
    if (reconfigured.length > 0) this.sim.trace.record(now, "net.config", "", undefined, undefined, undefined, { change: "defaults", links: reconfigured });
    return cut.length + clogged.length + reconfigured.length > 0;
  }

  /** Adds `extraDelayUs` to every message on the links (0 unclogs). */
  clog(from: readonly string[], to: readonly string[], extraDelayUs: number, oneWay = false): void {
    if (!(extraDelayUs >= 0)) throw new UserInputError(`clog delay must be ≥ 0, got ${extraDelayUs}`);
    const pairs = this.pairs(from, to, oneWay);
    for (const [a, b] of pairs) this.link(a, b).clogUs = extraDelayUs;
    this.sim.trace.record(this.sim.nowUs, extraDelayUs > 0 ? "clog" : "unclog", "", undefined, extraDelayUs, undefined, {
      links: pairs.map(([a, b]) => `${a.id}>${b.id}`),
    });
  }

  /** Changes delay/loss/duplication/reordering on links (all links when from/to are omitted). */
  configure(change: Partial<LinkConfig>, from?: readonly string[], to?: readonly string[], oneWay = false): void {
    const pairs = from === undefined || to === undefined ? this.allPairs() : this.pairs(from, to, oneWay);
    for (const [a, b] of pairs) {
      const link = this.link(a, b);
      const next = { ...link.config, ...change };
      validateLinkConfig(next, "link");
      link.config = next;
    }
    this.sim.trace.record(this.sim.nowUs, "net.config", "", undefined, undefined, undefined, {
      change,
      links: from === undefined ? "all" : pairs.map(([a, b]) => `${a.id}>${b.id}`),
    });
  }

  private pairs(from: readonly string[], to: readonly string[], oneWay: boolean): [SimNode, SimNode][] {
    const out: [SimNode, SimNode][] = [];
    const seen = new Set<string>();
    const add = (a: SimNode, b: SimNode) => {
      const key = `${a.index}>${b.index}`;
      if (a === b || seen.has(key)) return;
      seen.add(key);
      out.push([a, b]);
    };
    for (const f of from) for (const t of to) add(this.sim.node(f), this.sim.node(t));
    if (!oneWay) for (const t of to) for (const f of from) add(this.sim.node(t), this.sim.node(f));
    return out;
  }

  private allPairs(): [SimNode, SimNode][] {
    const out: [SimNode, SimNode][] = [];
    for (const a of this.nodes) for (const b of this.nodes) if (a !== b) out.push([a, b]);
    return out;
  }
}

export function validateLinkConfig(c: LinkConfig, what: string): void {
  const nonNeg = (name: keyof LinkConfig) => {
    const v = c[name];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new UserInputError(`${what}: ${name} must be a number ≥ 0, got ${String(v)}`);
  };
  nonNeg("minDelayUs");
  nonNeg("maxDelayUs");
  nonNeg("reorderExtraUs");
  if (c.maxDelayUs < c.minDelayUs) throw new UserInputError(`${what}: maxDelay (${c.maxDelayUs}µs) is below minDelay (${c.minDelayUs}µs)`);
  for (const name of ["lossRate", "duplicateRate", "reorderRate"] as const) {
    const v = c[name];
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) throw new UserInputError(`${what}: ${name} must be between 0 and 1, got ${String(v)}`);
  }
}
