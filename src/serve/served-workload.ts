/**
 * The "served" workload: a recorded `zksim serve` session played back with no client attached.
 * Its parameters are what entered the simulation from outside — the serve settings, and every
 * real connection's open, frames and close (`inputs`), each at its virtual time `atUs` and its
 * position (`events`: how many simulator events had run when it entered); the session's fault
 * commands are the scenario's ordinary `faults`; a session served with `--scenario` also keeps
 * that scenario's schedule (`scenario`: its faults, drawn nemesis faults included, its end and
 * server settings; its network and disk are the replay scenario's own), installed as serve did. `zksim serve --record` writes such a scenario
 * into a replay file (serve-recorder.ts), so `zksim replay` and `zksim shrink` take it like any
 * other, given `SERVE_REGISTRY` (the scenario layer cannot name serve/, so the commands that read
 * replay files pass a registry with this workload in it).
 *
 * Exactness: serve injects an input only between simulator steps, when every event due up to
 * now has run. The replay's driver (one world event at a time) therefore injects an input at
 * `atUs` only after the events that ran before it live: while fewer than `events` (not counting
 * the driver's own runs) have run and more are due at `atUs`, it queues itself behind them.
 * Inputs go through `ClientLinks.inject` (client-links.ts), the live gateway's own
 * path. A shrunk case (connections or faults removed) no longer matches the recorded positions;
 * there an input enters at its time once its instant's due events have run — still
 * deterministic.
 *
 * Invariants: `inputs` are in recorded order with non-decreasing `atUs`; a frame or close names
 * a connection opened before it; every defect is a one-line UserInputError naming the input.
 */
import { UserInputError, checkKnownFields } from "../sim/errors.js";
import type { Simulator } from "../sim/simulator.js";
import { ClientLinks, type ServedInput } from "./client-links.js";
import { addServeNodes, gatewayNodeId } from "./serve-ensemble.js";
import { SERVE_CHECKERS } from "./status-lines.js";
import { installServeScenario, serveScheduleFromRecord, serveScheduleToRecord, type ServeScenario } from "./serve-scenario.js";
import type { QuorumAddress, ServeMember, ServeSettings } from "./zoo-cfg.js";
import type { ServeAuth } from "./server-auth.js";
import type { ServeTiming } from "./serve-timing.js";
import { QUORUM_TIMING_FIELDS, QUORUM_TIMING_MIN, QUORUM_TIMING_PROFILES, type QuorumTiming, type QuorumTimingProfile } from "../zk/server/quorum/quorum-timing.js";
import type { Fault } from "../sim/faults.js";
import type { Scenario } from "../scenario/types.js";
import type { WorkloadDef } from "../scenario/workload.js";
import { SCENARIO_REGISTRY, withWorkloads, type Registry } from "../scenario/registry.js";

export const SERVED_WORKLOAD = "served";

/** One input as the replay file holds it (frames in base64). */
export type RecordedInput = { atUs: number; events: number; conn: number } & ({ kind: "connect"; server: string; address?: string } | { kind: "frame"; base64: string } | { kind: "close" });

export function recordInput(input: ServedInput, atUs: number, events: number): RecordedInput {
  const at = { atUs, events, conn: input.conn };
  switch (input.kind) {
    case "connect":
      return { ...at, kind: "connect", server: input.server, ...(input.address !== undefined ? { address: input.address } : {}) };
    case "frame":
      return { ...at, kind: "frame", base64: Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.length).toString("base64") };
    case "close":
      return { ...at, kind: "close" };
  }
}

/** The settings as JSON: every field kept (sets as lists) but the start-up warnings. */
export function settingsToRecord(settings: ServeSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    // The system properties are where `auth` came from; `auth` itself is what the servers use.
    if (key === "warnings" || key === "systemProperties") continue;
    out[key] = key === "auth" ? authToRecord(value as ServeAuth) : value instanceof Set ? [...(value as Set<unknown>)] : value;
  }
  out.quorumTimingProfile = settings.quorumTimingProfile ?? "zookeeper-3.8";
  return out;
}

/** `auth` as JSON: its provider set and SASL users (passwords included: the replay needs them) as lists. */
function authToRecord(auth: ServeAuth): Record<string, unknown> {
  return { ...auth, authProviders: [...auth.authProviders], ...(auth.saslUsers !== undefined ? { saslUsers: [...auth.saslUsers] } : {}) };
}

function parseAuth(raw: unknown): ServeAuth {
  const at = "workload.settings.auth";
  const doc = object(raw, at);
  const strings = (v: unknown, name: string): string[] => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new UserInputError(`${at}.${name} must be a list of strings`);
    return v as string[];
  };
  const auth: ServeAuth = { authProviders: new Set(strings(doc.authProviders, "authProviders")), saslSuperUsers: strings(doc.saslSuperUsers ?? [], "saslSuperUsers") };
  if (doc.superDigest !== undefined) {
    if (typeof doc.superDigest !== "string") throw new UserInputError(`${at}.superDigest must be a string`);
    auth.superDigest = doc.superDigest;
  }
  if (doc.saslUsers !== undefined) {
    const users = doc.saslUsers;
    if (!Array.isArray(users) || !users.every((u) => Array.isArray(u) && u.length === 2 && typeof u[0] === "string" && typeof u[1] === "string")) throw new UserInputError(`${at}.saslUsers must be a list of [user, password]`);
    auth.saslUsers = new Map(users as [string, string][]);
  }
  return auth;
}

/**
 * The scenario a served session recorded: it ends where serve stopped, with no convergence phase.
 * `timing`: the link and disk settings served with (serve-timing.ts); default the schedule's, else the simulator's.
 */
export function servedScenario(settings: ServeSettings, inputs: readonly RecordedInput[], faults: readonly Fault[], endUs: number, seed: number, schedule?: ServeScenario, timing?: ServeTiming): Scenario {
  const params: Record<string, unknown> = { settings: settingsToRecord(settings), inputs: [...inputs] };
  if (schedule !== undefined) params.scenario = serveScheduleToRecord(schedule);
  return {
    name: "served",
    description: `a zksim serve session (seed ${seed}): ${new Set(inputs.map((i) => i.conn)).size} real connection(s), ${faults.length} fault(s)`,
    tags: ["served"],
    defaultSeed: seed,
    durationMs: Math.max(1, endUs / 1000),
    network: timing?.network ?? schedule?.network ?? {},
    disk: timing?.disk ?? schedule?.disk ?? {},
    workload: { kind: SERVED_WORKLOAD, params },
    faults: [...faults],
    checkers: [...SERVE_CHECKERS],
    convergence: false,
  };
}

/** The connections of a served scenario's params, removable as a whole by `zksim shrink`. */
function connectionsOf(params: Record<string, unknown>): string[] {
  return [...new Set(parseInputs(params.inputs).map((i) => String(i.conn)))];
}

function keepConnections(params: Record<string, unknown>, kept: readonly string[]): Record<string, unknown> {
  const keep = new Set(kept);
  return { ...params, inputs: parseInputs(params.inputs).filter((i) => keep.has(String(i.conn))) };
}

export const servedWorkload: WorkloadDef = {
  kind: SERVED_WORKLOAD,
  description: "a recorded zksim serve session: its real clients' connections and frames, replayed at their virtual times",
  nodes(params) {
    checkKnownFields(params, ["settings", "inputs", "scenario"], "workload");
    const settings = settingsFromRecord(params.settings);
    const inputs = parseInputs(params.inputs);
    checkConnections(inputs, settings.members);
    const nodes = servedNodes(settings);
    if (params.scenario !== undefined) serveScheduleFromRecord(params.scenario, {}, {}, nodes);
    return nodes;
  },
  defaultCheckers: () => [...SERVE_CHECKERS],
  lastInputUs: (params) => parseInputs(params.inputs).at(-1)?.atUs ?? 0,
  removableParts: { what: "connections", list: connectionsOf, keep: keepConnections },
  create(ctx) {
    const settings = settingsFromRecord(ctx.params.settings);
    const inputs = parseInputs(ctx.params.inputs);
    const nodes = servedNodes(settings);
    const schedule = ctx.params.scenario === undefined ? undefined : serveScheduleFromRecord(ctx.params.scenario, ctx.scenario.network, ctx.scenario.disk, nodes);
    return {
      setup() {
        const variant = { ...(ctx.canary !== undefined ? { canary: ctx.canary } : {}), ...(ctx.bugs !== undefined ? { bugs: ctx.bugs } : {}) };
        // The disk served with is the replay scenario's (serve-timing.ts), as its links are.
        addServeNodes(ctx.sim, settings, variant, schedule ?? { disk: ctx.scenario.disk });
        // Installed where serve installs it: after the nodes, before any input (serve-session.ts).
        if (schedule !== undefined) installServeScenario(ctx.sim, schedule, new Map(settings.members.map((m) => [m.node, gatewayNodeId(m)])), () => undefined);
        driveInputs(ctx.sim, new ClientLinks({ sim: ctx.sim, settings, gatewayOf: gatewayNodeId }), inputs);
      },
    };
  },
};

/** The members `sN` and their gateway nodes `cN` (serve-ensemble.ts). */
function servedNodes(settings: ServeSettings): string[] {
  return [...settings.members.map((m) => m.node), ...settings.members.map(gatewayNodeId)];
}

/** Schedules the replay driver: one world event at a time, at the next input's time. */
function driveInputs(sim: Simulator, links: ClientLinks, inputs: readonly RecordedInput[]): void {
  let next = 0;
  let ownRuns = 0;
  const drive = (): void => {
    ownRuns++;
    const nowUs = sim.nowUs;
    for (; next < inputs.length && inputs[next]!.atUs <= nowUs; next++) {
      const input = inputs[next]!;
      if (sim.eventCount - ownRuns < input.events && sim.nextEventTimeUs() === nowUs) {
        sim.schedule(nowUs, drive); // behind the events due now that ran first live
        return;
      }
      links.inject(servedInput(input));
    }
    if (next < inputs.length) sim.schedule(inputs[next]!.atUs, drive);
  };
  if (inputs.length > 0) sim.schedule(inputs[0]!.atUs, drive);
}

function servedInput(r: RecordedInput): ServedInput {
  switch (r.kind) {
    case "connect":
      return { kind: "connect", conn: r.conn, server: r.server, ...(r.address !== undefined ? { address: r.address } : {}) };
    case "frame":
      return { kind: "frame", conn: r.conn, bytes: new Uint8Array(Buffer.from(r.base64, "base64")) };
    case "close":
      return { kind: "close", conn: r.conn };
  }
}

// ---- validation ---------------------------------------------------------------------------

/** The inverse of `settingsToRecord`, checked: a bad field is one line naming it. */
export function settingsFromRecord(raw: unknown): ServeSettings {
  const at = "workload.settings";
  const doc = object(raw, at);
  const members = doc.members;
  if (!Array.isArray(members) || members.length === 0) throw new UserInputError(`${at}.members must be a non-empty list of {sid, node, observer, clientPort}`);
  const parsed: ServeMember[] = members.map((m, i) => {
    const o = object(m, `${at}.members[${i}]`);
    const sid = wholeNumber(o.sid, `${at}.members[${i}].sid`, 1);
    if (o.node !== `s${sid}`) throw new UserInputError(`${at}.members[${i}].node must be "s${sid}", got ${JSON.stringify(o.node)}`);
    if (typeof o.observer !== "boolean") throw new UserInputError(`${at}.members[${i}].observer must be true or false`);
    if (o.joiner !== undefined && typeof o.joiner !== "boolean") throw new UserInputError(`${at}.members[${i}].joiner must be true or false`);
    return {
      sid,
      node: `s${sid}`,
      observer: o.observer,
      clientPort: wholeNumber(o.clientPort, `${at}.members[${i}].clientPort`, 0),
      ...(o.joiner === true ? { joiner: true } : {}),
      ...(o.quorumAddress !== undefined ? { quorumAddress: quorumAddressFromRecord(o.quorumAddress, `${at}.members[${i}].quorumAddress`) } : {}),
    };
  });
  const words = doc.fourLetterWords ?? [];
  if (!Array.isArray(words) || !words.every((w) => typeof w === "string")) throw new UserInputError(`${at}.fourLetterWords must be a list of words`);
  const optional = (key: string) => (doc[key] === undefined ? {} : { [key]: wholeNumber(doc[key], `${at}.${key}`, 0) });
  for (const key of ["instantGatewayLinks", "reconfigEnabled", "standaloneEnabled"]) {
    if (doc[key] !== undefined && typeof doc[key] !== "boolean") throw new UserInputError(`${at}.${key} must be true or false`);
  }
  return {
    ...doc,
    members: parsed,
    tickTimeMs: wholeNumber(doc.tickTimeMs, `${at}.tickTimeMs`, 1),
    initLimitTicks: wholeNumber(doc.initLimitTicks, `${at}.initLimitTicks`, 1),
    syncLimitTicks: wholeNumber(doc.syncLimitTicks, `${at}.syncLimitTicks`, 1),
    ...optional("minSessionTimeoutMs"),
    ...optional("maxSessionTimeoutMs"),
    maxClientCnxns: wholeNumber(doc.maxClientCnxns ?? 0, `${at}.maxClientCnxns`, 0),
    fourLetterWords: new Set(words as string[]),
    warnings: [],
    ...(doc.auth !== undefined ? { auth: parseAuth(doc.auth) } : {}),
    ...(doc.quorumTiming !== undefined ? { quorumTiming: parseQuorumTiming(doc.quorumTiming) } : {}),
    // Recorded before serve ran 3.8's failover timings: the classic ones reproduce the run.
    quorumTimingProfile: quorumTimingProfileOf(doc.quorumTimingProfile ?? "zksim-classic"),
  };
}

/** A member's `server.N` addresses as recorded (they are in the config text real clients read). */
function quorumAddressFromRecord(raw: unknown, at: string): QuorumAddress {
  const o = object(raw, at);
  if (typeof o.host !== "string" || o.host === "") throw new UserInputError(`${at}.host must be a host name`);
  if (o.client !== undefined && typeof o.client !== "string") throw new UserInputError(`${at}.client must be "addr:port"`);
  return { host: o.host, peerPort: wholeNumber(o.peerPort, `${at}.peerPort`, 1), electionPort: wholeNumber(o.electionPort, `${at}.electionPort`, 1), ...(o.client !== undefined ? { client: o.client } : {}) };
}

function quorumTimingProfileOf(raw: unknown): QuorumTimingProfile {
  if (QUORUM_TIMING_PROFILES.includes(raw as QuorumTimingProfile)) return raw as QuorumTimingProfile;
  throw new UserInputError(`workload.settings.quorumTimingProfile must be one of ${QUORUM_TIMING_PROFILES.map((p) => `"${p}"`).join(", ")}, got ${JSON.stringify(raw)}`);
}

function parseQuorumTiming(raw: unknown): Partial<QuorumTiming> {
  const at = "workload.settings.quorumTiming";
  const doc = object(raw, at);
  checkKnownFields(doc, QUORUM_TIMING_FIELDS, at);
  const out: Partial<QuorumTiming> = {};
  for (const field of QUORUM_TIMING_FIELDS) if (doc[field] !== undefined) out[field] = wholeNumber(doc[field], `${at}.${field}`, QUORUM_TIMING_MIN[field]);
  return out;
}

function parseInputs(raw: unknown): RecordedInput[] {
  if (!Array.isArray(raw)) throw new UserInputError(`workload.inputs must be a list of recorded inputs {atUs, events, conn, kind, …}`);
  // Positions only move forward: each input at or after the one before it, in time and in events run.
  let lastUs = 0;
  let lastEvents = 0;
  return raw.map((r, i) => {
    const at = `workload.inputs[${i}]`;
    const o = object(r, at);
    const atUs = wholeNumber(o.atUs, `${at}.atUs`, lastUs);
    const events = wholeNumber(o.events, `${at}.events`, lastEvents);
    lastUs = atUs;
    lastEvents = events;
    const base = { atUs, events, conn: wholeNumber(o.conn, `${at}.conn`, 1) };
    switch (o.kind) {
      case "connect":
        checkKnownFields(o, ["atUs", "events", "conn", "kind", "server", "address"], at);
        if (typeof o.server !== "string") throw new UserInputError(`${at}.server must name a member ("s1")`);
        if (o.address !== undefined && typeof o.address !== "string") throw new UserInputError(`${at}.address must be the client's IP address ("127.0.0.1")`);
        return { ...base, kind: "connect", server: o.server, ...(o.address !== undefined ? { address: o.address } : {}) };
      case "frame":
        checkKnownFields(o, ["atUs", "events", "conn", "kind", "base64"], at);
        if (typeof o.base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(o.base64) || o.base64.length % 4 !== 0) throw new UserInputError(`${at}.base64 must be the frame's bytes in base64`);
        return { ...base, kind: "frame", base64: o.base64 };
      case "close":
        checkKnownFields(o, ["atUs", "events", "conn", "kind"], at);
        return { ...base, kind: "close" };
      default:
        throw new UserInputError(`${at}.kind must be "connect", "frame" or "close", got ${JSON.stringify(o.kind)}`);
    }
  });
}

/** Each connection opens once, at a member, before its frames and close. */
function checkConnections(inputs: readonly RecordedInput[], members: readonly ServeMember[]): void {
  const open = new Set<number>();
  inputs.forEach((input, i) => {
    const at = `workload.inputs[${i}]`;
    if (input.kind === "connect") {
      if (open.has(input.conn)) throw new UserInputError(`${at}: connection ${input.conn} opens twice`);
      if (!members.some((m) => m.node === input.server)) throw new UserInputError(`${at}.server: no member "${input.server}" (members: ${members.map((m) => m.node).join(", ")})`);
      open.add(input.conn);
    } else if (!open.has(input.conn)) {
      throw new UserInputError(`${at}: connection ${input.conn} was never opened`);
    }
  });
}

function object(v: unknown, at: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new UserInputError(`${at} must be an object`);
  return v as Record<string, unknown>;
}

function wholeNumber(v: unknown, at: string, min: number): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new UserInputError(`${at} must be a whole number ≥ ${min}, got ${JSON.stringify(v)}`);
  return v;
}

/** The built-in registry and the "served" workload: what a recorded serve session's replay file names. */
export const SERVE_REGISTRY: Registry = withWorkloads(SCENARIO_REGISTRY, [servedWorkload]);
