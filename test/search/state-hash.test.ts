/**
 * The model checker's state hash (src/search/world-state.ts): equal states reached by different
 * paths hash alike — independent deliveries in either order, votes reaching the coordinator in
 * any order, the same steps under another seed (other message delays, so other times) — and a
 * state that differs in any protocol field, on any node, in memory or on disk, or in a message in
 * flight, hashes differently.
 */
import { describe, expect, it } from "vitest";
import { Executor, type Live } from "../../src/search/executor.js";
import { choicesAt, stepName, type Step } from "../../src/search/choices.js";
import { NO_FAULTS } from "../../src/search/bounds.js";
import { targetFor } from "../../src/search/targets.js";
import { TimerHandle, NodeContext } from "../../src/sim/node-context.js";
import { pendingMessage } from "../../src/sim/network.js";

const target = targetFor("2pc");

function choices(exec: Executor, live: Live): Step[] {
  const sim = live.world.sim;
  return choicesAt({ events: exec.observe(live, false).events, nowUs: sim.nowUs, left: { ...NO_FAULTS }, faultable: [], status: (n) => sim.node(n).status, down: live.down, anyCut: false });
}

/** Takes the steps whose names match, in order (a name is a step's canonical key). */
async function walk(exec: Executor, live: Live, ...patterns: RegExp[]): Promise<void> {
  for (const p of patterns) {
    const step = choices(exec, live).find((s) => p.test(stepName(s)));
    if (step === undefined) throw new Error(`no choice matches ${p} (choices: ${choices(exec, live).map(stepName).join("; ")})`);
    await exec.apply(live, step);
  }
}

const hash = (exec: Executor, live: Live) => exec.observe(live, false).hash;

/** From the setup to every prepare in flight: the client's timer, its request, co's begin record. */
const TO_PREPARES = [/timer\|c1\|txn/, /c1>co.*begin/, /fsync\|co/, /callback\|co/];
const PREPARED = (p: string) => [new RegExp(`co>${p}.*prepare`), new RegExp(`fsync\\|${p}`), new RegExp(`callback\\|${p}`)];

describe("search: state hash", () => {
  it("search: state hash: deliveries to different participants in either order reach one hash", async () => {
    const exec = new Executor(target, "setup");
    const a = await exec.fresh();
    await walk(exec, a, ...TO_PREPARES, /co>p1.*prepare/, /co>p2.*prepare/);
    const b = await exec.fresh();
    await walk(exec, b, ...TO_PREPARES, /co>p2.*prepare/, /co>p1.*prepare/);
    expect(hash(exec, a)).toBe(hash(exec, b));
    // p2 and p3 prepared is another state; under the target's symmetry (p1-p3 interchangeable)
    // it is the same one renamed.
    const exact = new Executor(target, "setup", false);
    const a2 = await exact.fresh();
    await walk(exact, a2, ...TO_PREPARES, /co>p1.*prepare/, /co>p2.*prepare/);
    const c = await exact.fresh();
    await walk(exact, c, ...TO_PREPARES, /co>p2.*prepare/, /co>p3.*prepare/);
    expect(hash(exact, c)).not.toBe(hash(exact, a2));
    const c2 = await exec.fresh();
    await walk(exec, c2, ...TO_PREPARES, /co>p2.*prepare/, /co>p3.*prepare/);
    expect(hash(exec, c2)).toBe(hash(exec, a));
  });

  it("search: state hash: votes reaching the coordinator in another order reach one hash", async () => {
    const exec = new Executor(target, "setup");
    const votes = [...PREPARED("p1"), ...PREPARED("p2"), ...PREPARED("p3")];
    const a = await exec.fresh();
    await walk(exec, a, ...TO_PREPARES, ...votes, /p1>co.*vote/, /p2>co.*vote/, /p3>co.*vote/);
    const b = await exec.fresh();
    await walk(exec, b, ...TO_PREPARES, ...votes, /p3>co.*vote/, /p1>co.*vote/, /p2>co.*vote/);
    expect(hash(exec, a)).toBe(hash(exec, b));
  });

  it("search: state hash: the same steps under another seed (other delays and times, same ids) hash alike", async () => {
    const steps = [...TO_PREPARES, ...PREPARED("p2"), /co>p1.*prepare/];
    const one = new Executor(target, "setup");
    const a = await one.fresh();
    await walk(one, a, ...steps);
    const two = new Executor({ ...target, seed: 2 }, "setup");
    const b = await two.fresh();
    await walk(two, b, ...steps);
    expect(a.world.sim.nowUs).not.toBe(b.world.sim.nowUs);
    expect(hash(one, a)).toBe(hash(two, b));
  });

  it("search: state hash: changing any protocol field of any node, its disk, or a message in flight changes the hash", async () => {
    const exec = new Executor(target, "setup");
    const live = await exec.fresh();
    await walk(exec, live, ...TO_PREPARES, ...PREPARED("p1"), /co>p2.*prepare/, /p1>co.*vote/);
    const original = hash(exec, live);
    const sim = live.world.sim;
    let mutated = 0;
    for (const id of sim.nodeIds) {
      for (const leaf of leaves(sim.node(id).process)) {
        leaf.set(changed(leaf.get()));
        expect(hash(exec, live), `${id}: ${leaf.path}`).not.toBe(original);
        leaf.set(leaf.original);
        mutated++;
      }
      for (const file of sim.node(id).disk.inspect()) {
        for (const leaf of leaves(file.durable)) {
          leaf.set(changed(leaf.get()));
          expect(hash(exec, live), `${id} disk ${file.name}: ${leaf.path}`).not.toBe(original);
          leaf.set(leaf.original);
          mutated++;
        }
      }
    }
    for (const p of sim.pendingList()) {
      const m = pendingMessage(p.ev);
      if (m === undefined) continue;
      for (const leaf of leaves(m.payload)) {
        leaf.set(changed(leaf.get()));
        expect(hash(exec, live), `message ${m.type} ${m.from}>${m.to}: ${leaf.path}`).not.toBe(original);
        leaf.set(leaf.original);
        mutated++;
      }
    }
    expect(hash(exec, live)).toBe(original);
    expect(mutated).toBeGreaterThan(30);
  });
});

interface Leaf {
  path: string;
  original: unknown;
  get(): unknown;
  set(v: unknown): void;
}

/** Every primitive field reachable from a value (object fields, array items, Map values), kernel handles left out. */
function leaves(root: unknown): Leaf[] {
  const out: Leaf[] = [];
  const seen = new Set<object>();
  const visit = (v: unknown, path: string, get: () => unknown, set: (x: unknown) => void): void => {
    if (v === null || v === undefined || typeof v === "function") return;
    if (typeof v !== "object") {
      out.push({ path, original: v, get, set });
      return;
    }
    if (seen.has(v) || v instanceof NodeContext || v instanceof TimerHandle || v instanceof Promise) return;
    seen.add(v);
    if (v instanceof Map) {
      for (const [k, x] of v) visit(x, `${path}.get(${String(k)})`, () => v.get(k), (y) => v.set(k, y));
      return;
    }
    if (v instanceof Set) return;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) visit(o[k], `${path}.${k}`, () => o[k], (y) => (o[k] = y));
  };
  visit(root, "", () => root, () => undefined);
  return out.filter((l) => l.path !== "");
}

function changed(v: unknown): unknown {
  switch (typeof v) {
    case "number":
      return v + 1;
    case "string":
      return `${v}′`;
    case "boolean":
      return !v;
    case "bigint":
      return v + 1n;
    default:
      return v;
  }
}
