/**
 * `npm run conformance`: re-records the golden transcripts from a real ZooKeeper 3.8.0 (when
 * Debian's package is installed) and compares `zksim serve` (one simulated server, on the wall
 * clock) with them; the ensemble scripts (ensemble-scripts.ts) each on a fresh real ensemble
 * and a fresh served one of the same shape. Prints the report and exits 1 on a difference not explained in
 * known-differences.ts. `--compare-only` skips the recording.
 */
import { fileURLToPath } from "node:url";
import { startServe } from "../serve/serve-session.js";
import { CONFORMANCE_JVM_FLAGS, CONFORMANCE_SCRIPTS, conformanceServeSettings } from "./scripts.js";
import { compareSuite, formatReport, readGolden, runSuite, writeGoldens } from "./suite.js";
import { freePort, realZooKeeperInstalled, startRealZooKeeper } from "./real-zookeeper.js";
import { ENSEMBLE_CONFORMANCE_SCRIPTS, recordEnsembleScript, runEnsembleScriptOnServe } from "./ensemble-scripts.js";

export const GOLDEN_DIR = fileURLToPath(new URL("../../conformance/golden/", import.meta.url));

async function main(argv: string[]): Promise<number> {
  if (!argv.includes("--compare-only")) {
    if (!realZooKeeperInstalled()) {
      console.error("conformance: no real ZooKeeper (apt-get install -y zookeeper); comparing with the committed golden transcripts");
    } else {
      const real = await startRealZooKeeper(60_000, CONFORMANCE_JVM_FLAGS);
      try {
        console.log(`conformance: recording from ${real.version} on 127.0.0.1:${real.port}`);
        writeGoldens(GOLDEN_DIR, await runSuite(CONFORMANCE_SCRIPTS, real), real.version);
      } finally {
        await real.stop();
      }
    }
  }
  if (!argv.includes("--compare-only") && realZooKeeperInstalled()) {
    for (const script of ENSEMBLE_CONFORMANCE_SCRIPTS) {
      console.log(`conformance: recording ${script.name} from a real ensemble (${script.ensemble.servers} servers, ${script.ensemble.joiners} joiner(s), reconfigEnabled=${script.ensemble.reconfigEnabled})`);
      const { transcript, version } = await recordEnsembleScript(script, CONFORMANCE_JVM_FLAGS);
      writeGoldens(GOLDEN_DIR, [transcript], version);
    }
  }
  const ensembleGoldens = ENSEMBLE_CONFORMANCE_SCRIPTS.map((s) => readGolden(GOLDEN_DIR, s.name));
  const ensembleRuns = [];
  for (const script of ENSEMBLE_CONFORMANCE_SCRIPTS) ensembleRuns.push(await runEnsembleScriptOnServe(script));
  const ensembleReport = compareSuite(ensembleGoldens, ensembleRuns);
  const goldens = CONFORMANCE_SCRIPTS.map((s) => readGolden(GOLDEN_DIR, s.name));
  const clientPort = process.env.ZKSIM_PORT_RANGE === undefined ? 0 : await freePort();
  const serve = await startServe({ settings: conformanceServeSettings(clientPort), seed: 1, out: () => {} });
  try {
    const port = [...serve.clientPorts.values()][0]!;
    const single = compareSuite(goldens, await runSuite(CONFORMANCE_SCRIPTS, { host: "127.0.0.1", port }));
    const report = {
      matches: single.matches + ensembleReport.matches,
      total: single.total + ensembleReport.total,
      explained: [...single.explained, ...ensembleReport.explained],
      unexplained: [...single.unexplained, ...ensembleReport.unexplained],
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
