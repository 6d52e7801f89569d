/**
 * A protected resource that checks fencing tokens: the storage a lock holder writes to. It is
 * modelled as one znode whose data is `{token, value, writer}`; a fenced write is the check a
 * storage server would do on its side — refuse a token smaller than the largest it has seen —
 * made atomic with a versioned setData (compare-and-set). Writers should reach it through a
 * handle of their own (another session, like a separate storage connection), not the lock's
 * session: a stale lock holder's lock session is dead, but its storage connection is not.
 *
 * An unfenced write (`fenced: false`) overwrites unconditionally: what a lock user without
 * tokens does, and what lets a paused, stale holder clobber the current holder's work.
 *
 * Trace: `recipe.resource {resource, client, session, token, value, fenced, outcome, zxid?}`
 * with outcome `begin` (before the first request), then `accepted` (with `zxid`, where the
 * write took effect: the resource's mzxid when we saw it ours), `rejected` (a larger token was
 * seen), or `unknown` (the session died with the write in flight).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { zxidHex, type Zxid } from "../zk/proto/records.js";
import { Code } from "../zk/proto/error-code.js";
import { decodeText, ensurePath, hasCode, isRecoverable, isSessionFatal, keeperCode, retrying, SessionLostError, type RecipeHost } from "./recipe-support.js";

interface Stored {
  token: number;
  value: string;
  writer: string;
}

export type WriteOutcome = "accepted" | "rejected" | "unknown";

// The last resource text written or parsed, and its value: a fenced writer reads the resource
// before its write, mostly what the previous writer wrote. Shared, so read-only (fencedWrite only
// reads its fields). Keyed by the whole text, and JSON.parse is pure: what `storedOf` returns
// is what parsing that text returns, whatever was read or written before.
let lastText = "";
let lastStored: Readonly<Stored> | undefined;

function storedOf(data: Uint8Array | null): Readonly<Stored> {
  const text = decodeText(data);
  if (lastStored === undefined || text !== lastText) {
    lastStored = JSON.parse(text) as Stored;
    lastText = text;
  }
  return lastStored;
}

/** `text` (JSON.stringify of `written`) is now the resource's: the next reader will likely parse it. */
function written(text: string, value: Stored): void {
  // A safe integer token parses back to itself (a NaN or an infinity would come back null).
  if (!Number.isSafeInteger(value.token)) return;
  lastText = text;
  lastStored = { token: value.token, value: value.value, writer: value.writer };
}

export class FencedResource {
  private writes = 0;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
  ) {}

  async init(): Promise<void> {
    await ensurePath(this.zk, this.host, "resource", this.path, JSON.stringify({ token: -1, value: "", writer: "" }));
  }

  async write(token: number, value: string, fenced = true): Promise<WriteOutcome> {
    const writer = `${this.host.id}#${++this.writes}`;
    const mine: Stored = { token, value, writer };
    const resource = this.path;
    const client = this.host.id;
    const session = this.zk.getSessionIdHex();
    // Two literals, not `{ ...fields, outcome }`: a spread builds its object's shape anew each time.
    this.host.annotate("recipe.resource", { resource, client, session, token, value, fenced, outcome: "begin" });
    let outcome: WriteOutcome;
    let zxid: Zxid | undefined;
    try {
      [outcome, zxid] = fenced ? await this.fencedWrite(mine) : await this.unfencedWrite(mine);
    } catch (err) {
      if (!(err instanceof SessionLostError)) throw err;
      outcome = "unknown";
    }
    this.host.annotate("recipe.resource", { resource, client, session, token, value, fenced, outcome, zxid: zxid === undefined ? undefined : zxidHex(zxid) });
    return outcome;
  }

  async read(): Promise<Stored> {
    const { data } = await retrying(this.host, "resource", () => this.zk.getData(this.path));
    return JSON.parse(decodeText(data)) as Stored;
  }

  /** The outcome, and for an accepted write the zxid it took effect at. */
  private async fencedWrite(mine: Stored): Promise<[WriteOutcome, Zxid?]> {
    let maybeLanded = false;
    for (;;) {
      const { data, stat } = await retrying(this.host, "resource", () => this.zk.getData(this.path));
      const seen = storedOf(data);
      if (seen.writer === mine.writer) return ["accepted", stat.mzxid]; // our earlier attempt landed
      // After a lost reply, ours may have landed and been overwritten since: we cannot tell.
      if (mine.token < seen.token) return [maybeLanded ? "unknown" : "rejected"];
      try {
        const text = JSON.stringify(mine);
        const { mzxid } = await this.zk.setData(this.path, text, stat.version);
        written(text, mine);
        return ["accepted", mzxid];
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("resource", keeperCode(err));
        // BADVERSION: somebody wrote meanwhile; CONNECTIONLOSS: maybe ours. Re-read either way.
        if (!isRecoverable(err) && !hasCode(err, Code.BADVERSION)) throw err;
        if (isRecoverable(err)) maybeLanded = true;
      }
    }
  }

  private async unfencedWrite(mine: Stored): Promise<[WriteOutcome, Zxid]> {
    const text = JSON.stringify(mine);
    const { mzxid } = await retrying(this.host, "resource", () => this.zk.setData(this.path, text, -1));
    written(text, mine);
    return ["accepted", mzxid];
  }
}
