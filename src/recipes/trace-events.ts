/**
 * The trace annotations of the recipes, as types: each recipe states what it did at its
 * boundaries (`recipe.<name>`), and the recipe checkers judge from these and the session facts
 * of the trace alone. Added to the kernel's schema by module augmentation (`sim/trace-schema.ts`);
 * `docs/trace.md` lists every event word each recipe writes. Types only.
 *
 * Every recipe annotation names its instance (lock directory, barrier path…), the `client` node
 * and its `session` (hex text) at the time of the event.
 */
import "../sim/trace-schema.js";

/** The fields every recipe annotation starts with, after its instance. */
interface RecipeParty {
  client: string;
  session: string;
}

declare module "../sim/trace-schema.js" {
  interface TraceAnnotations {
    /** event: waiting | acquired {token} | released {token} | lost {token, reason} | abandoned {reason}. */
    "recipe.lock": RecipeParty & { lock: string; event: string; token?: number; reason?: string };
    /** A write to a fenced resource: outcome begin, then accepted {zxid} | rejected | unknown. */
    "recipe.resource": RecipeParty & { resource: string; token: number; value: string; fenced: boolean; outcome: string; zxid?: string };
    /** event: candidate | elected | suspended | resigned | withdrawn | lost {reason}. */
    "recipe.election": RecipeParty & { election: string; event: string; reason?: string };
    /** event: raised | lowered | down | wait | passed (simple); enter | entered | leave | left {size} (double). */
    "recipe.barrier": RecipeParty & { barrier: string; event: string; size?: number };
    /** event: read | final {value}; increment {n, delta, outcome, value?}. */
    "recipe.counter": RecipeParty & { counter: string; event: string; value?: number; n?: number; delta?: number; outcome?: string };
    /** event: offer {item, outcome, node?, seq?, priority?, retried?} | take {…, unsure} | dropped | wait (a consumer found it empty) | drained. */
    "recipe.queue": RecipeParty & {
      queue: string;
      delivery: "at-least-once" | "at-most-once";
      event: string;
      item?: string;
      node?: string;
      seq?: number;
      priority?: number;
      outcome?: string;
      retried?: boolean;
      unsure?: boolean;
    };
    /** event: joined | left {member}; view {members, fresh?}. */
    "recipe.group": RecipeParty & { group: string; event: string; member?: string; members?: readonly string[]; fresh?: boolean };
    /** event: write-begin | write | stopped | seen {value, fresh?}. */
    "recipe.config": RecipeParty & { config: string; event: string; value: string | null; fresh?: boolean };
    /** event: listed {names}; assigned {name, tag}. */
    "recipe.naming": RecipeParty & { dir: string; event: string; names?: readonly string[]; name?: string; tag?: string };
    /** event: begin {sites}; vote {site, vote}; proposed | decided {decision}. */
    "recipe.2pc": RecipeParty & { tx: string; event: string; sites?: readonly string[]; site?: string; vote?: string; decision?: string };
    /** event: waiting | acquired {node} | abandoned | released, per `mode`. */
    "recipe.rwlock": RecipeParty & { lock: string; mode: "read" | "write"; event: string; node?: string };
    /** event: seen | requested, about lock node `node`. */
    "recipe.revoke": RecipeParty & { lock: string; event: string; node: string };
  }
}
