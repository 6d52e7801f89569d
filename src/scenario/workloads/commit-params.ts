/**
 * Parameters of the commit-protocol workloads ("two-phase-commit", "three-phase-commit"),
 * validated eagerly: every mistake is one line naming the field.
 *
 *   script        "2pc" / "3pc", or a variant ("2pc-abort-in-doubt" …; see commit-variants.ts)
 *   participants  1–9 (default 3); clients 1–8 (default 1)
 *   termination   2PC only: "coordinator" (default) or "cooperative"
 *   transactions  [{atMs, client?, key, value, noVoteFrom?}] — value a string or a number;
 *                 default one transaction x=1 from c1 at 100 ms
 *   story         the book passage the run narrates (see commit-narrative.ts)
 *   swarm         true: the seed draws the shape and the transactions (the scenario's
 *                 "protocol-swarm" nemesis draws the faults before the run)
 */
import { UserInputError } from "../../sim/errors.js";
import type { PlannedTxn } from "../../protocols/atomic-commit/client.js";
import type { Termination } from "../../protocols/atomic-commit/config.js";
import { COMMIT_SCRIPT_VARIANTS } from "./commit-variants.js";
import { intParam } from "../workload.js";

export type Protocol = "2pc" | "3pc";

export const COORDINATOR = "coordinator";
export const SWARM_MAX_PARTICIPANTS = 5;
export const SWARM_MAX_CLIENTS = 3;
export const STORIES = ["commit", "rollback", "coordinator-crash-blocks", "partial-commit", "coordinator-crash-nonblocking", "partition-inconsistency"] as const;
export type Story = (typeof STORIES)[number];

const KNOWN = ["script", "participants", "clients", "termination", "transactions", "story", "swarm"];

export interface CommitParams {
  protocol: Protocol;
  variant: string | undefined;
  participants: number;
  clients: number;
  termination: Termination;
  transactions: (PlannedTxn & { client: string })[];
  story: Story | undefined;
  swarm: boolean;
}

export const participantIds = (n: number): string[] => Array.from({ length: n }, (_, i) => `p${i + 1}`);
export const clientIds = (n: number): string[] => Array.from({ length: n }, (_, i) => `c${i + 1}`);

export function parseCommitParams(protocol: Protocol, kind: string, params: Record<string, unknown>): CommitParams {
  for (const k of Object.keys(params)) if (!KNOWN.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "${kind}" (known: ${KNOWN.join(", ")})`);
  const script = params.script ?? protocol;
  const variants = Object.values(COMMIT_SCRIPT_VARIANTS[protocol] ?? {});
  if (typeof script !== "string" || (script !== protocol && !variants.includes(script))) {
    throw new UserInputError(`workload.script: unknown ${protocol.toUpperCase()} build ${JSON.stringify(script)} (known: ${[protocol, ...variants].join(", ")})`);
  }
  const swarm = params.swarm ?? false;
  if (typeof swarm !== "boolean") throw new UserInputError(`workload.swarm: expected true or false, got ${JSON.stringify(swarm)}`);
  const participants = intParam(params, "participants", swarm ? SWARM_MAX_PARTICIPANTS : 3, 1, 9);
  const clients = intParam(params, "clients", swarm ? SWARM_MAX_CLIENTS : 1, 1, 8);
  const termination = params.termination ?? "coordinator";
  if (termination !== "coordinator" && termination !== "cooperative") throw new UserInputError(`workload.termination: expected "coordinator" or "cooperative", got ${JSON.stringify(termination)}`);
  if (protocol === "3pc" && params.termination !== undefined) throw new UserInputError(`workload.termination: 3PC always runs its termination protocol (it is part of its timeout rules); remove the field`);
  const story = params.story;
  if (story !== undefined && !(STORIES as readonly unknown[]).includes(story)) throw new UserInputError(`workload.story: unknown story ${JSON.stringify(story)} (known: ${STORIES.join(", ")})`);
  return {
    protocol,
    variant: script === protocol ? undefined : script.slice(4),
    participants,
    clients,
    termination,
    transactions: parseTransactions(params.transactions, participantIds(participants), clientIds(clients)),
    story: story as Story | undefined,
    swarm,
  };
}

function parseTransactions(raw: unknown, participants: string[], clients: string[]): (PlannedTxn & { client: string })[] {
  if (raw === undefined) return [{ atMs: 100, client: "c1", key: "x", value: 1, noVoteFrom: [] }];
  if (!Array.isArray(raw) || raw.length === 0) throw new UserInputError(`workload.transactions: expected a non-empty list like [{"atMs": 100, "key": "x", "value": 1}]`);
  return raw.map((t, i) => {
    const at = `workload.transactions[${i}]`;
    if (typeof t !== "object" || t === null || Array.isArray(t)) throw new UserInputError(`${at}: expected an object like {"atMs": 100, "key": "x", "value": 1}`);
    const o = t as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!["atMs", "client", "key", "value", "noVoteFrom"].includes(k)) throw new UserInputError(`${at}: unknown field "${k}" (allowed: atMs, client, key, value, noVoteFrom)`);
    if (typeof o.atMs !== "number" || !Number.isFinite(o.atMs) || o.atMs < 0) throw new UserInputError(`${at}.atMs: expected a number ≥ 0, got ${JSON.stringify(o.atMs)}`);
    const client = o.client ?? "c1";
    if (typeof client !== "string" || !clients.includes(client)) throw new UserInputError(`${at}.client: unknown client ${JSON.stringify(client)} (known: ${clients.join(", ")})`);
    if (typeof o.key !== "string" || o.key === "") throw new UserInputError(`${at}.key: expected a non-empty string, got ${JSON.stringify(o.key)}`);
    const value = o.value;
    if (typeof value !== "string" && (typeof value !== "number" || !Number.isFinite(value))) throw new UserInputError(`${at}.value: expected a string or a number, got ${JSON.stringify(value)}`);
    const noVoteFrom = o.noVoteFrom ?? [];
    if (!Array.isArray(noVoteFrom)) throw new UserInputError(`${at}.noVoteFrom: expected a list of participant names`);
    for (const p of noVoteFrom) if (typeof p !== "string" || !participants.includes(p)) throw new UserInputError(`${at}.noVoteFrom: unknown participant ${JSON.stringify(p)} (known: ${participants.join(", ")})`);
    return { atMs: o.atMs, client, key: o.key, value, noVoteFrom: noVoteFrom as string[] };
  });
}
