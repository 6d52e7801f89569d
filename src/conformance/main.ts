/**
 * `npm run conformance`: re-records the golden transcripts from a real ZooKeeper 3.8.0 (when
 * Debian's package is installed) and compares `zksim serve` (one simulated server, on the wall
 * clock) with them; the ensemble scripts (ensemble-scripts.ts) each on a fresh real ensemble
 * and a fresh served one of the same shape. Prints the report and exits 1 on a difference not explained in
 * known-differences.ts. `--compare-only` skips the recording; `--only a,b` runs just those scripts.
 */
import { fileURLToPath } from "node:url";
import { startServe } from "../serve/serve-session.js";
import { CONFORMANCE_JVM_FLAGS, CONFORMANCE_SCRIPTS, conformanceServeSettings } from "./scripts.js";
import { compareSuite, formatReport, readGolden, runSuite, writeGoldens } from "./suite.js";
import { freePort, realZooKeeperInstalled, startRealZooKeeper } from "./real-zookeeper.js";
import { ENSEMBLE_CONFORMANCE_SCRIPTS, recordEnsembleScript, runEnsembleScriptOnServe } from "./ensemble-scripts.js";
import { PROPERTY_CONFORMANCE_SCRIPTS, recordPropertyScript, runPropertyScriptOnServe } from "./property-scripts.js";

export const GOLDEN_DIR = fileURLToPath(new URL("../../conformance/golden/", import.meta.url));

/** `--only a,b`: just those scripts (recorded and compared); absent: every one. */
function onlyFilter(argv: string[]): (name: string) => boolean {
  const at = argv.indexOf("--only");
  if (at < 0) return () => true;
  const names = new Set((argv[at + 1] ?? "").split(","));
  const known = [...CONFORMANCE_SCRIPTS, ...ENSEMBLE_CONFORMANCE_SCRIPTS, ...PROPERTY_CONFORMANCE_SCRIPTS].map((s) => s.name);
  for (const n of names) if (!known.includes(n)) throw new Error(`--only: no script "${n}" (scripts: ${known.join(", ")})`);
  return (name) => names.has(name);
}

async function main(argv: string[]): Promise<number> {
  const only = onlyFilter(argv);
  const scripts = CONFORMANCE_SCRIPTS.filter((s) => only(s.name));
  const ensembleScripts = ENSEMBLE_CONFORMANCE_SCRIPTS.filter((s) => only(s.name));
  const propertyScripts = PROPERTY_CONFORMANCE_SCRIPTS.filter((s) => only(s.name));
  if (!argv.includes("--compare-only") && scripts.length > 0) {
    if (!realZooKeeperInstalled()) {
      console.error("conformance: no real ZooKeeper (apt-get install -y zookeeper); comparing with the committed golden transcripts");
    } else {
      const real = await startRealZooKeeper(60_000, CONFORMANCE_JVM_FLAGS);
      try {
        console.log(`conformance: recording from ${real.version} on 127.0.0.1:${real.port}`);
        writeGoldens(GOLDEN_DIR, await runSuite(scripts, real), real.version);
      } finally {
        await real.stop();
      }
    }
  }
  if (!argv.includes("--compare-only") && realZooKeeperInstalled()) {
    for (const script of ensembleScripts) {
      console.log(`conformance: recording ${script.name} from a real ensemble (${script.ensemble.servers} servers, ${script.ensemble.joiners} joiner(s), reconfigEnabled=${script.ensemble.reconfigEnabled})`);
      const { transcript, version } = await recordEnsembleScript(script, CONFORMANCE_JVM_FLAGS);
      writeGoldens(GOLDEN_DIR, [transcript], version);
    }
  }
  if (!argv.includes("--compare-only") && realZooKeeperInstalled()) {
    for (const script of propertyScripts) {
      console.log(`conformance: recording ${script.name} from a real server started with ${[...script.properties.keys()].join(", ")}`);
      const { transcript, version } = await recordPropertyScript(script);
      writeGoldens(GOLDEN_DIR, [transcript], version);
    }
  }
  // Scripts with a server of their own (an ensemble, other system properties), each compared on a fresh serve.
  const ownGoldens = [...ensembleScripts, ...propertyScripts].map((s) => readGolden(GOLDEN_DIR, s.name));
  const ownRuns = [];
  for (const script of ensembleScripts) ownRuns.push(await runEnsembleScriptOnServe(script));
  for (const script of propertyScripts) ownRuns.push(await runPropertyScriptOnServe(script));
  const ownReport = compareSuite(ownGoldens, ownRuns);
  const goldens = scripts.map((s) => readGolden(GOLDEN_DIR, s.name));
  const clientPort = process.env.ZKSIM_PORT_RANGE === undefined ? 0 : await freePort();
  const serve = await startServe({ settings: conformanceServeSettings(clientPort), seed: 1, out: () => {} });
  try {
    const port = [...serve.clientPorts.values()][0]!;
    const single = compareSuite(goldens, await runSuite(scripts, { host: "127.0.0.1", port }));
    const report = {
      matches: single.matches + ownReport.matches,
      total: single.total + ownReport.total,
      explained: [...single.explained, ...ownReport.explained],
      unexplained: [...single.unexplained, ...ownReport.unexplained],
    };
    for (const line of formatReport(report)) console.log(line);
    return report.unexplained.length === 0 ? 0 : 1;
  } finally {
    await serve.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`conformance: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(3);
  },
);
