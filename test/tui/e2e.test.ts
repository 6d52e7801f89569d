/**
 * End to end: the real `zksim learn` app in a pseudo-terminal (tmux: keys in with send-keys,
 * the screen out with capture-pane), 80×24. A learner steps, steps back, opens the help,
 * finishes a lesson through the command line, and quits with q; the lesson is recorded in the
 * progress file and the terminal comes back. `learn compare 2pc 3pc` steps both runs, and one
 * crash leaves 2PC blocked while 3PC finishes. Needs the built CLI (dist/) and tmux; without
 * tmux it falls back to `script`, reading the raw output; it skips only when neither exists.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const TMUX = has("tmux");
const SCRIPT = has("script");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmux(...args: string[]): string {
  let r = spawnSync("tmux", args, { encoding: "utf8" });
  // The previous test's kill-session can leave the tmux server exiting just as the next
  // new-session reaches it ("server exited unexpectedly"); a second try starts a fresh server.
  if (r.status !== 0 && /server exited unexpectedly/.test(r.stderr)) r = spawnSync("tmux", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Generous: the machine running the tests may be busy; a real hang still fails. */
async function waitFor(read: () => string, pattern: RegExp, what: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = read();
    if (pattern.test(screen)) return screen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
    await sleep(100);
  }
}

/** The app started in a detached 80×24 tmux session: its screen, keys, and a typed command. */
function tmuxApp(name: string, config: string, args: string) {
  const cmd = `cd ${JSON.stringify(process.cwd())} && XDG_CONFIG_HOME=${config} CI=false FORCE_COLOR=0 ${process.execPath} ${BIN} learn ${args}; echo EXIT:$?; sleep 30`;
  tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd);
  const screen = () => tmux("capture-pane", "-t", name, "-p");
  const keys = (...k: string[]) => tmux("send-keys", "-t", name, ...k);
  const command = async (text: string, done: RegExp) => {
    keys(":");
    await waitFor(screen, /^:▏/m, "the command line");
    keys("-l", text);
    await waitFor(screen, new RegExp(`^:${text.replace(/[/.*+?^${}()|[\]\\]/g, "\\$&")}▏`, "m"), `"${text}" typed`);
    keys("Enter");
    return waitFor(screen, done, `"${text}" to finish`);
  };
  return { screen, keys, command };
}

const reason = !TMUX && !SCRIPT ? "neither tmux nor script is installed (apt-get install -y tmux)" : "";

describe.skipIf(reason !== "")(`tui: end to end in a pseudo-terminal${reason !== "" ? ` — skipped: ${reason}` : ""}`, () => {
  it.skipIf(!TMUX)("tui: e2e (tmux): step, back, help, finish a lesson by commands, quit", async () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-e2e-"));
    const name = `zksim-e2e-${process.pid}`;
    const { screen, keys, command } = tmuxApp(name, config, "--lesson quorum-commit");
    try {
      const first = await waitFor(screen, /zksim learn zab \[3\] · seed 1 · step 0/, "the first frame");
      expect(first).toMatch(/○ GOAL: commit a write while exactly one follower is down/);
      expect(first.trimEnd().split("\n").length).toBeLessThanOrEqual(23);
      keys("Right");
      await waitFor(screen, /· step 1 ·/, "step 1");
      keys("Right");
      await waitFor(screen, /· step 2 ·/, "step 2");
      keys("Left");
      await waitFor(screen, /· step 1 \(of 2\) ·/, "back to step 1");
      keys("?");
      await waitFor(screen, /KEYS — \? or esc closes/, "the help");
      keys("?");
      await waitFor(screen, /PENDING/, "the screen again");
      await command("crash s1", /✖ s1 down/);
      await command("write c1 /a 1", /create \/a=pending|ops create \/a/);
      await command("run 1s", /now step \d+/);
      await command("crash s2", /✖ s2 down/);
      await command("write c1 /b 2", /create \/b/);
      await command("run 2s", /✓ GOAL REACHED/);
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
      expect(readFileSync(join(config, "zksim", "learn.json"), "utf8")).toMatch(/"zab\/quorum-commit"/);
    } finally {
      spawnSync("tmux", ["kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX)("tui: e2e (tmux): learn compare 2pc 3pc — steps both runs, a crash hits both, 2PC blocks where 3PC finishes, q quits", async () => {
    const name = `zksim-e2e-compare-${process.pid}`;
    const cmd = `cd ${JSON.stringify(process.cwd())} && CI=false FORCE_COLOR=0 ${process.execPath} ${BIN} learn compare 2pc 3pc; echo EXIT:$?; sleep 30`;
    tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd);
    const screen = () => tmux("capture-pane", "-t", name, "-p");
    const keys = (...k: string[]) => tmux("send-keys", "-t", name, ...k);
    try {
      const first = await waitFor(screen, /zksim learn 3pc \[standard\] · seed 1 · step 0/, "the first frame");
      expect(first).toMatch(/zksim learn 2pc \[standard\] · seed 1 · step 0/);
      expect(first.trimEnd().split("\n").length).toBeLessThanOrEqual(23);
      for (let i = 1; i <= 8; i++) {
        keys("Right");
        await waitFor(screen, new RegExp(`joint step ${i} `), `joint step ${i}`);
      }
      keys("c");
      await waitFor(screen, /✖ co coordinator[^]*✖ co coordinator/, "the crash in both runs");
      keys(":");
      await waitFor(screen, /^:▏/m, "the command line");
      keys("-l", "run 4s");
      keys("Enter");
      const end = await waitFor(screen, /⇒ aborted: p1 p2 p3/, "3PC to finish");
      expect(end).toMatch(/⇒ in doubt \(Yes\): p1 p2 p3/);
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
    } finally {
      spawnSync("tmux", ["kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX)("tui: e2e (tmux): a Paxos lesson finished by commands: the BALLOTS pane shows the chosen majority", async () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-e2e-"));
    const name = `zksim-e2e-paxos-${process.pid}`;
    const { screen, keys, command } = tmuxApp(name, config, "paxos --lesson why-phase-1");
    try {
      const first = await waitFor(screen, /zksim learn paxos \[correct\] · seed 1 · step 0/, "the first frame");
      expect(first).toMatch(/BALLOTS \(a majority is 2 of 3\)/);
      expect(first.trimEnd().split("\n").length).toBeLessThanOrEqual(23);
      await command("run 20ms", /✓ b1 p1\s+promised a1 a2 a3\s+accepted a1 a2 a3 \[1, A\]\s+chosen/);
      await command("fire t2", /^done\s*$/m);
      const done = await command("run 40ms", /✓ GOAL REACHED/);
      expect(done).toMatch(/b2 p2\s+promised a1 a2 a3\s+accepted a1 a2 a3 \[2, A\]/);
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
      expect(readFileSync(join(config, "zksim", "learn.json"), "utf8")).toMatch(/"paxos\/why-phase-1"/);
    } finally {
      spawnSync("tmux", ["kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX)("tui: e2e (tmux): without a lesson the menu comes first; L returns to it; q quits", async () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-e2e-"));
    const name = `zksim-e2e-menu-${process.pid}`;
    const cmd = `cd ${JSON.stringify(process.cwd())} && XDG_CONFIG_HOME=${config} CI=false FORCE_COLOR=0 ${process.execPath} ${BIN} learn; echo EXIT:$?; sleep 30`;
    tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd);
    const screen = () => tmux("capture-pane", "-t", name, "-p");
    const keys = (...k: string[]) => tmux("send-keys", "-t", name, ...k);
    try {
      const menu = await waitFor(screen, /Choose a lesson/, "the lessons menu");
      expect(menu).toMatch(/A commit needs a quorum's ACKs\s+\(quorum-commit\)/);
      keys("Down");
      await waitFor(screen, /A proposal that a quorum has logged survives/, "the second lesson's idea");
      keys("Enter");
      await waitFor(screen, /○ GOAL: crash the leader while a proposal is logged/, "the lesson's first frame");
      keys("L");
      await waitFor(screen, /Choose a lesson/, "the menu again");
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
    } finally {
      spawnSync("tmux", ["kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(TMUX || !SCRIPT)("tui: e2e (script): the app starts in a pseudo-terminal and q quits", async () => {
    const child = spawn("script", ["-qfec", `CI=false FORCE_COLOR=0 COLUMNS=80 LINES=24 ${process.execPath} ${BIN} learn`, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    const plain = () => out.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "");
    await waitFor(plain, /Choose a lesson/, "the lessons menu");
    child.stdin.write("\r");
    await waitFor(plain, /step 0/, "the first frame");
    child.stdin.write("\u001B[C");
    await waitFor(plain, /step 1/, "step 1");
    child.stdin.write("q");
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code).toBe(0);
  }, 180_000);
});
