/**
 * Conformance scripts that need a server of their own, started with other Java system properties
 * than the suite's shared server: each runs on a fresh real 3.8.0 (the properties in
 * `SERVER_JVMFLAGS`, and zoo.cfg without the keys they stand in for) when recording, and on a
 * fresh `zksim serve` whose settings take the same properties the way `zksim serve -D…` does
 * when comparing.
 */
import { startServe } from "../serve/serve-session.js";
import { FOUR_LETTER_WHITELIST_PROPERTY, fourLetterWhitelist, withFourLetterWhitelist } from "../serve/zoo-cfg.js";
import { CONFORMANCE_JVM_FLAGS, conformanceServeSettings } from "./scripts.js";
import { runScript, type ConformanceScript } from "./runner.js";
import { startRealZooKeeper } from "./real-zookeeper.js";
import type { Transcript } from "./transcript.js";

export interface PropertyScript extends ConformanceScript {
  /** System properties of this script's server, over the suite's (`-Dkey=value`; no blanks in values). */
  properties: ReadonlyMap<string, string>;
}

/** The property's whitelist: two words; the script asks others too. */
const WHITELIST = "ruok,conf";

export const PROPERTY_CONFORMANCE_SCRIPTS: readonly PropertyScript[] = [
  {
    name: "four-letter-whitelist-property",
    about: "-Dzookeeper.4lw.commands.whitelist=ruok,conf with no whitelist key in zoo.cfg: those two answered, srvr always, stat/mntr/isro refused with 3.8's line",
    properties: new Map([[FOUR_LETTER_WHITELIST_PROPERTY, WHITELIST]]),
    async run(t) {
      await t.fourLetterWord("ruok", "ruok (whitelisted)");
      await t.fourLetterWord("conf", "conf (whitelisted): its keys", (answer) => answer.split("\n").filter((l) => l !== "").map((l) => l.split("=")[0]));
      await t.fourLetterWord("srvr", "srvr (always allowed): its keys", (answer) => answer.split("\n").filter((l) => l !== "").map((l) => l.split(":")[0]));
      for (const word of ["stat", "mntr", "isro", "dirs"]) await t.fourLetterWord(word, `${word} (not whitelisted)`);
    },
  },
];

function jvmFlags(script: PropertyScript): string {
  return [CONFORMANCE_JVM_FLAGS, ...[...script.properties].map(([k, v]) => `-D${k}=${v}`)].join(" ");
}

/** Runs `script` on a fresh real 3.8 server started with its properties (zoo.cfg without a whitelist). */
export async function recordPropertyScript(script: PropertyScript): Promise<{ transcript: Transcript; version: string }> {
  const real = await startRealZooKeeper(60_000, jvmFlags(script), false);
  try {
    return { transcript: await runScript(script, real), version: real.version };
  } finally {
    await real.stop();
  }
}

/** Runs `script` on a fresh `zksim serve` of one server whose settings take its properties as `-D` words do. */
export async function runPropertyScriptOnServe(script: PropertyScript): Promise<Transcript> {
  // The suite's server, without its zoo.cfg whitelist (`*`): the property gives it.
  const base = { ...conformanceServeSettings(0), fourLetterWords: fourLetterWhitelist(undefined) };
  const serve = await startServe({ settings: withFourLetterWhitelist(base, script.properties), seed: 1, out: () => {} });
  try {
    return await runScript(script, { host: "127.0.0.1", port: [...serve.clientPorts.values()][0]! });
  } finally {
    await serve.close();
  }
}
