/**
 * An explore worker thread: loads the scenario named in `workerData`, then runs each seed the
 * parent posts and answers with its outcome. The parent terminates it when the sweep is done.
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadScenario } from "../scenario-files.js";
import type { Scenario } from "../../scenario/types.js";
import { runOneSeed, type FromWorker, type ToWorker, type WorkerInit } from "./explore.js";

const port = parentPort;
if (port === null) throw new Error("explore worker: started outside a worker thread");
const init = workerData as WorkerInit;
const post = (m: FromWorker) => port.postMessage(m);

let scenario: Scenario | undefined;
try {
  scenario = loadScenario(init.scenario, init.variant);
} catch (err) {
  post({ kind: "fatal", message: err instanceof Error ? err.message : String(err) });
}

if (scenario !== undefined) {
  const loaded = scenario;
  const { scenario: _name, variant: _variant, ...options } = init;
  // Seeds arrive one at a time and the parent waits for each answer, so runs never overlap.
  port.on("message", (m: ToWorker) => {
    void runOneSeed(loaded, m.seed, options).then((outcome) => post({ kind: "outcome", outcome }));
  });
  post({ kind: "ready" });
}
