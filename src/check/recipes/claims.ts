/**
 * What a role holder claims, against what its client was told: a lock holder or an elected
 * leader claims the role from its grant (`acquired`, `elected`) until it says it gave it up
 * (`released` / `lost`; `resigned` / `lost` / `suspended`), whatever the session does meanwhile.
 * Once its client handle reports the session expired (`client.state` CLOSED, cause "expired"),
 * the recipe has heard the news and must give the role up promptly: the ZooKeeper recipes tell
 * the application through `lost` (Curator: LOST). "Promptly" is within `TOLD_GRACE_US` (1 s of
 * virtual time): a holder that was still setting up its watch when the news came learns it from
 * its next operation's SESSIONEXPIRED, a retry backoff later, not from the event itself. A claim
 * still open after that is a holder acting on a role its session no longer backs. (Mutual exclusion itself ends
 * a role at the session's end, which the server decides; this is the recipe's side of it.)
 *
 * A role that must not outlive a connection loss (`endsOnDisconnect`: an elected leader, whose
 * recipe suspends on Disconnected — Curator's LeaderLatch on SUSPENDED, and docs/recipes.md —
 * because it cannot know whether the server is about to expire its session) is also told by
 * its client's Disconnected: a `client.state` CONNECTING of the claiming session, which the
 * client records when it loses an established connection. The same grace applies. A lock is
 * not such a role: its holder keeps the lock across a connection loss within the session.
 *
 * Reads only trace events (the recipe annotations and `client.state`); shares no code with the
 * recipes or the client.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { optionalStringField, stringField } from "../event-reader.js";
import { fmtMs } from "./sessions.js";

/** How long after its client is told of the expiry a holder may still claim the role (see the header). */
export const TOLD_GRACE_US = 1_000_000;

const NOTHING: readonly string[] = [];

interface Claim {
  client: string;
  key: string;
  atUs: number;
  /** When the client was told its session expired, or (endsOnDisconnect) its connection was lost: the claim must be gone after this instant. */
  toldAtUs?: number;
  /** What it was told. */
  told?: "expired" | "disconnected";
}

export class ClaimsAfterExpiry {
  /** Session → instance key → its open claim. */
  private readonly claims = new Map<string, Map<string, Claim>>();
  /** Told claims not yet judged, by session. */
  private readonly told: { session: string; claim: Claim }[] = [];

  constructor(
    private readonly words: { kind: string; role: string },
    private readonly endsOnDisconnect = false,
  ) {}

  /** The kinds `onClientState` reads. */
  static readonly KINDS = ["client.state"] as const;

  grant(session: string, client: string, key: string, atUs: number): void {
    let bySession = this.claims.get(session);
    if (bySession === undefined) this.claims.set(session, (bySession = new Map()));
    bySession.set(key, { client, key, atUs });
  }

  end(session: string, key: string): void {
    this.claims.get(session)?.delete(key);
  }

  /** Before an event at `atUs`: the claims that outlived the instant their client was told (one message each). */
  judge(atUs: number): readonly string[] {
    // Called before every event a recipe checker reads: nothing told, nothing made.
    if (this.told.length === 0) return NOTHING;
    const out: string[] = [];
    for (let i = 0; i < this.told.length; ) {
      const { session, claim } = this.told[i]!;
      if (claim.toldAtUs! + TOLD_GRACE_US >= atUs) {
        i++;
        continue;
      }
      this.told.splice(i, 1);
      if (this.claims.get(session)?.get(claim.key) !== claim) continue;
      this.claims.get(session)!.delete(claim.key);
      out.push(this.message(session, claim));
    }
    return out;
  }

  /** A `client.state` event: an expiry the client saw (or, endsOnDisconnect, a lost connection) marks its session's claims as told. */
  onClientState(e: TraceEvent<"client.state">): void {
    const state = stringField(e, "state");
    const told = state === "CLOSED" && optionalStringField(e, "cause") === "expired" ? "expired" : state === "CONNECTING" && this.endsOnDisconnect ? "disconnected" : undefined;
    if (told === undefined) return;
    const session = stringField(e, "session");
    for (const claim of this.claims.get(session)?.values() ?? []) {
      if (claim.toldAtUs !== undefined) continue;
      claim.toldAtUs = e.atUs;
      claim.told = told;
      this.told.push({ session, claim });
    }
  }

  /** At the end of the run: every told claim still open. */
  finish(): readonly string[] {
    return this.judge(Number.MAX_SAFE_INTEGER);
  }

  private message(session: string, c: Claim): string {
    const head = `${c.client} still claims ${this.words.kind} ${c.key} (${this.words.role} since ${fmtMs(c.atUs)}, session ${session})`;
    const grace = `more than ${TOLD_GRACE_US / 1e6} s later`;
    if (c.told === "disconnected") {
      return `${head} after its client lost its connection at ${fmtMs(c.toldAtUs!)} (Disconnected), ${grace}: a leader must suspend (stop acting) while it cannot know whether its session is still alive`;
    }
    return `${head} after its client was told at ${fmtMs(c.toldAtUs!)} that the session expired, ${grace}: a recipe must give the role up (lost) when its session is gone`;
  }
}
