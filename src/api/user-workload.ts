/**
 * Workload "user": the zk workload's deployment (servers, observers, clients, timing) driven by a
 * user's script instead of a named built-in one. Its parameters are the deployment's plus where
 * the script lives (`module`, `export`), so a replay file of a user run names the code to load:
 * `{"kind": "user", "module": "src/lock.js", "export": "buggyLock", "servers": 3, "clients": 2}`.
 *
 * `USER_DOCUMENTS` (the built-in registry plus the def without a script) validates such documents
 * (parsing a replay file) but cannot run one: the script is code, not data. A run uses
 * `userRegistry(script)` (RunOptions.registry), whose def runs exactly that script;
 * `zksim replay FILE --module PATH` imports it first.
 */
import { UserInputError } from "../sim/errors.js";
import type { WorkloadDef } from "../scenario/workload.js";
import { SCENARIO_REGISTRY, withWorkloads, type Registry } from "../scenario/registry.js";
import { ENSEMBLE_PARAMS, ZAB_TRACE_ROLES, ensembleCheckers, ensembleNodes, ensembleWorkload } from "../scenario/workloads/zk.js";
import type { ScriptDef } from "../scenario/scripts/script.js";
import { makeWorld } from "./world.js";
import type { UserScript } from "./user-script.js";

/** The workload kind of a user's script in scenario documents and replay files. */
export const USER_WORKLOAD = "user";
const KNOWN_PARAMS = ["module", "export", ...ENSEMBLE_PARAMS];

/** The workload that runs `script` (without one: validates documents only). */
export function userWorkloadDef(script?: UserScript): WorkloadDef {
  return {
    kind: USER_WORKLOAD,
    description: "a ZooKeeper server or ensemble and client nodes driven by a user's script (the public API)",
    nodes(params) {
      for (const k of Object.keys(params)) {
        if (!KNOWN_PARAMS.includes(k)) throw new UserInputError(`workload: unknown parameter "${k}" for kind "user" (known: ${KNOWN_PARAMS.join(", ")})`);
      }
      if (typeof params.module !== "string" || params.module === "") throw new UserInputError(`workload.module: expected the path of the module that exports the script`);
      if (typeof params.export !== "string" || params.export === "") throw new UserInputError(`workload.export: expected the name the script is exported under`);
      return ensembleNodes(params);
    },
    defaultCheckers: ensembleCheckers,
    traceRoles: ZAB_TRACE_ROLES,
    create(w) {
      if (script === undefined) {
        throw new UserInputError(`workload "user": this case runs a user's script (${String(w.params.export)} of ${String(w.params.module)}); replay it with --module PATH`);
      }
      const def: ScriptDef = {
        name: script.export,
        description: `the user's script ${script.export}`,
        run: (s) => script.run(makeWorld(s, w.report)),
      };
      // A user's watchers resolve promises of their own: their continuations run at the watch's time.
      w.sim.drainAfterEveryEvent = true;
      return ensembleWorkload(w, def);
    },
  };
}

/** The built-ins and the document-only "user" workload: replay files and options of user runs parse with it. */
export const USER_DOCUMENTS: Registry = withWorkloads(SCENARIO_REGISTRY, [userWorkloadDef()]);

/** The registry a run of `script` uses: the built-ins and the "user" workload that runs it. */
export function userRegistry(script: UserScript): Registry {
  return withWorkloads(SCENARIO_REGISTRY, [userWorkloadDef(script)]);
}
