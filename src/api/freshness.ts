/**
 * `readAfterConfirmedWrite`: the opt-in freshness checker for a user's script — "a read invoked
 * after a write to its path was confirmed, by any client, sees it" — which ZooKeeper does not
 * promise without `sync` (src/check/client/read-after-write.ts says exactly what it judges).
 * Put it among a script's checkers (`checkers: [readAfterConfirmedWrite]`) to find the reads that
 * need a `sync(path)` first; the same checker is `client.read-after-confirmed-write` by name.
 */
import type { CheckerDef } from "../check/define-checker.js";
import { ReadAfterConfirmedWriteChecker } from "../check/client/read-after-write.js";

export const readAfterConfirmedWrite: CheckerDef = Object.freeze({ name: "client.read-after-confirmed-write", make: () => new ReadAfterConfirmedWriteChecker() });
