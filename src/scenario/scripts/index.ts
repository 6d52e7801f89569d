/** The registry of scenario scripts, by name: a plain value assembled here from the script modules. */
import { UserInputError } from "../../sim/errors.js";
import type { ScriptDef } from "./script.js";
import { standaloneBasics } from "./standalone-basics.js";
import { sessionExpiry } from "./session-expiry.js";
import { watchSemantics } from "./watch-semantics.js";
import { reconnectWatches } from "./reconnect-watches.js";
import { watchRemoval } from "./watch-removal.js";
import { aclEnforcement } from "./acl-enforcement.js";
import { saslAuth } from "./sasl-auth.js";
import { serverRestartRecovery } from "./server-restart-recovery.js";
import { zabLeaderCrashBeforeCommit } from "./zab-leader-crash-before-commit.js";
import { zabFollowerRestartTrunc } from "./zab-follower-restart-trunc.js";
import { zabElectionLongestLog } from "./zab-election-longest-log.js";
import { zabElectionFinalizeWait } from "./zab-election-finalize-wait.js";
import { zabIsolatedLeader } from "./zab-isolated-leader.js";
import { reconfigAddServer, reconfigPartition, reconfigRemoveLeader } from "./reconfig.js";
import { reconfigSwarm } from "./reconfig-swarm.js";
import { zabRollingRestart } from "./zab-rolling-restart.js";
import { zabObserver } from "./zab-observer.js";
import { zabFollowerSnap, zabFollowerTxnLogDiff } from "./zab-follower-snap.js";
import { zabFollowerBigSnapshot } from "./zab-follower-big-snapshot.js";
import { zabRandomFaults } from "./zab-random-faults.js";
import { ensembleSessionMoved } from "./ensemble-session-moved.js";
import { ensembleSessionTimeouts } from "./ensemble-session-timeouts.js";
import { ensembleLookupAfterLoss } from "./ensemble-lookup-after-loss.js";
import { zabFollowerCrossEpochSnap } from "./zab-follower-cross-epoch-snap.js";
import { clientTraffic } from "./client-traffic.js";
import { benchTraffic } from "./bench-traffic.js";
import { soakTree } from "./soak-tree.js";
import { clientPipeline } from "./client-pipeline.js";
import { clientConnectTimeout } from "./client-connect-timeout.js";
import { readOnlyMode } from "./read-only-mode.js";
import { wholeApi } from "./whole-api.js";
import { readOnlyRwSearch } from "./read-only-rw-search.js";
import { readOnlyGlobalSessions, readOnlyLocalExpiry } from "./read-only-sessions.js";
import { quotaEnforcement } from "./quota-enforcement.js";
import { hashOrders } from "./hash-orders.js";
import { RECIPE_SCRIPTS, RECIPE_VARIANTS } from "./recipe-scripts.js";
import { BUG_SCRIPTS } from "./bug-scripts.js";
import { COMMIT_SCRIPT_VARIANTS } from "../workloads/commit-variants.js";

/** Every script a scenario's `workload.script` may name, one a line (a new script: one more line). */
const SCRIPTS: ReadonlyMap<string, ScriptDef> = new Map<string, ScriptDef>(
  [
    standaloneBasics,
    sessionExpiry,
    watchSemantics,
    reconnectWatches,
    watchRemoval,
    aclEnforcement,
    saslAuth,
    serverRestartRecovery,
    zabLeaderCrashBeforeCommit,
    zabFollowerRestartTrunc,
    zabIsolatedLeader,
    reconfigAddServer,
    reconfigRemoveLeader,
    reconfigPartition,
    reconfigSwarm,
    zabRollingRestart,
    zabObserver,
    zabFollowerSnap,
    zabFollowerTxnLogDiff,
    zabFollowerBigSnapshot,
    zabFollowerCrossEpochSnap,
    zabRandomFaults,
    ensembleSessionMoved,
    ensembleSessionTimeouts,
    ensembleLookupAfterLoss,
    clientTraffic,
    benchTraffic,
    soakTree,
    clientPipeline,
    clientConnectTimeout,
    readOnlyMode,
    wholeApi,
    readOnlyRwSearch,
    readOnlyGlobalSessions,
    readOnlyLocalExpiry,
    quotaEnforcement,
    hashOrders,
    ...RECIPE_SCRIPTS,
    ...BUG_SCRIPTS,
    zabElectionLongestLog,
    zabElectionFinalizeWait,
  ].map((s) => [s.name, s]),
);

export function scriptNamed(name: string): ScriptDef {
  const s = SCRIPTS.get(name);
  if (s === undefined) throw new UserInputError(`unknown script "${name}" (known: ${scriptNames().join(", ")})`);
  return s;
}

/** The script that runs `variant` of `script` (e.g. recipe-lock, naive → recipe-lock-naive-herd). */
export function scriptVariant(script: string, variant: string): string {
  const variants = RECIPE_VARIANTS[script] ?? COMMIT_SCRIPT_VARIANTS[script];
  const named = variants?.[variant];
  if (named !== undefined) return named;
  const known = variants === undefined ? "it has none" : `its variants: ${Object.keys(variants).join(", ")}`;
  throw new UserInputError(`script "${script}" has no variant "${variant}" (${known})`);
}

export function scriptNames(): string[] {
  return [...SCRIPTS.keys()];
}
