// @ts-check
/**
 * The example's own checker, over the events its scripts record: only the client that holds a
 * role (the lock, the leadership) does the role's work. A client holds it from its `grant`
 * event until its `end` event; a `work` event by any other client — one that still believes it
 * holds the role after losing it — is a violation. Judged from the trace alone (what the
 * clients recorded), never from the lock objects.
 */
import { defineChecker } from "zksim";

/**
 * @param {string} name the checker's name in violations
 * @param {{ grant: string, work: string, end: string }} events the user events' names
 */
export function exclusiveWork(name, events) {
  return defineChecker({
    name,
    kinds: ["user.event"],
    start: () => /** @type {{ holder: string | null }} */ ({ holder: null }),
    onEvent(state, event, report) {
      const { name: what, client } = /** @type {{ name: string, client: string }} */ (event.fields);
      if (what === events.grant) state.holder = client;
      if (what === events.work && state.holder !== client) report(`${client} did "${events.work}" at ${event.atMs} ms while ${state.holder ?? "nobody"} held the role`);
      if (what === events.end && state.holder === client) state.holder = null;
    },
  });
}
