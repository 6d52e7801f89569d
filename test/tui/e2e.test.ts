/**
 * End to end: the real `zksim learn` app in a pseudo-terminal (tmux: keys in with send-keys,
 * the screen out with capture-pane), 80×24. A learner types before the first frame (the keys
 * wait, unechoed), steps, steps back, scrolls the help, answers the lesson's predictions,
 * finishes it through the command line, reads the goal box and the wrapped GOAL line, scrolls
 * the narration back, and quits with q — all without colour (NO_COLOR: the selection is a >
 * mark); the lesson is recorded in the progress file and the terminal comes back. `learn compare
 * 2pc 3pc` steps both runs, and one crash leaves 2PC blocked while 3PC finishes. Needs the
 * built CLI (dist/) and tmux; without tmux it falls back to `script`, reading the raw output; it
 * skips only when neither exists. The tmux tests run side by side, each in a session of its own
 * name (they wait on what the screen shows, not on time; the wall-clock group leaves the second
 * core to them).
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

/** A tmux server of these tests' own (its socket named by the process), apart from anyone else's sessions. */
const SOCKET = ["-L", `zksim-e2e-${process.pid}`];

function tmux(...args: string[]): string {
  let r = spawnSync("tmux", [...SOCKET, ...args], { encoding: "utf8" });
  // The previous test's kill-session can leave the tmux server exiting just as the next
  // new-session reaches it ("server exited unexpectedly"); a second try starts a fresh server.
  if (r.status !== 0 && /server exited unexpectedly/.test(r.stderr)) r = spawnSync("tmux", [...SOCKET, ...args], { encoding: "utf8" });
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
function tmuxApp(name: string, config: string, args: string, env = "FORCE_COLOR=0") {
  const cmd = `cd ${JSON.stringify(process.cwd())} && XDG_CONFIG_HOME=${config} CI=false ${env} ${process.execPath} ${BIN} learn ${args}; echo EXIT:$?; sleep 30`;
  tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd);
  const screen = () => tmux("capture-pane", "-t", name, "-p");
  /** The screen with its styles as escape sequences (to see that no colour is drawn). */
  const styled = () => tmux("capture-pane", "-t", name, "-p", "-e");
  const keys = (...k: string[]) => tmux("send-keys", "-t", name, ...k);
  const command = async (text: string, done: RegExp) => {
    keys(":");
    await waitFor(screen, /^:▏/m, "the command line");
    keys("-l", text);
    await waitFor(screen, new RegExp(`^:${text.replace(/[/.*+?^${}()|[\]\\]/g, "\\$&")}▏`, "m"), `"${text}" typed`);
    keys("Enter");
    return waitFor(screen, done, `"${text}" to finish`);
  };
  return { screen, styled, keys, command };
}

const reason = !TMUX && !SCRIPT ? "neither tmux nor script is installed (apt-get install -y tmux)" : "";

describe.skipIf(reason !== "")(`tui: end to end in a pseudo-terminal${reason !== "" ? ` — skipped: ${reason}` : ""}`, () => {
  it.skipIf(!TMUX).concurrent("tui: e2e (tmux): keys typed before the first frame, step, back, help, predictions, the goal box, scrollback, no colour, quit", async () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-e2e-"));
    const name = `zksim-e2e-${process.pid}`;
    const { screen, styled, keys, command } = tmuxApp(name, config, "--lesson quorum-commit", "NO_COLOR=1");
    try {
      // Typeahead: Enter (close the lesson's box) and → typed while the app starts are kept, not echoed.
      await sleep(300);
      const early = screen();
      keys("Enter");
      keys("Right");
      const first = await waitFor(screen, /zksim learn zab \[3\] · seed 1 · step 1 /, "the first frame, one step on");
      if (!/zksim learn/.test(early)) expect(first.split("\n")[0]).toMatch(/^zksim learn zab/); // nothing echoed above it
      expect(first).not.toMatch(/\^\[|\[C/);
      expect(first).toMatch(/○ GOAL: commit a write while exactly one follower is down/);
      expect(first.trimEnd().split("\n").length).toBeLessThanOrEqual(23);
      // No colour (NO_COLOR): the selected node and pending row carry a > mark instead.
      expect(first).toMatch(/^>● s1 follower/m);
      expect(first).toMatch(/^> 1 ▸ /m);
      expect(styled()).not.toMatch(/\u001B\[[0-9;]*3[1-7]m/);
      keys("Right");
      await waitFor(screen, /· step 2 ·/, "step 2");
      keys("Left");
      await waitFor(screen, /· step 1 \(of 2\) ·/, "back to step 1");
      keys("?");
      await waitFor(screen, /KEYS — \? or esc closes \(lines 1–\d+ of \d+/, "the help, scrollable");
      keys("PageDown");
      await waitFor(screen, /^COMMANDS \(after :\)/m, "the help scrolled to the commands");
      keys("?");
      await waitFor(screen, /PENDING/, "the screen again");
      await command("crash s1", /✖ s1 down/);
      await command("write c1 /a 1", /create \/a=pending|ops create \/a|c1 creates \/a/);
      // A decisive step: the run stops and asks; the engine answers.
      await command("run 1s", /PREDICT: s3 \(leader\) proposed 0x100000003 with s1 down/);
      keys("1");
      await waitFor(screen, /✓ right: s3 committed 0x100000003/, "the engine's answer");
      keys("Escape");
      await command("run 1s", /ran \d+ step\(s\)/);
      await command("crash s2", /✖ s2 down/);
      await command("write c1 /b 2", /c1 creates \/b/);
      await command("run 2s", /PREDICT: s3 \(leader\) proposed 0x100000004 with s1 and s2 down/);
      keys("2");
      await waitFor(screen, /✓ right: no COMMIT in a second/, "the second answer");
      keys("Escape");
      const box = await command("run 2s", /✓ GOAL REACHED — A commit needs a quorum's ACKs/);
      expect(box).toMatch(/^What happened: 0x100000003 committed with 2 of 3 servers/m);
      expect(box).toMatch(/^Invariants: ✓ zab\.committed-durability and zab\.durable-ack held/m);
      keys("Enter");
      const goal = await waitFor(screen, /^✓ GOAL REACHED: 0x100000003 committed/m, "the GOAL line, wrapped");
      const goalLines = goal.split("\n").slice(goal.split("\n").findIndex((l) => l.startsWith("✓ GOAL REACHED:")));
      expect(goalLines.slice(0, 3).join(" ").replace(/\s+/g, " ")).toMatch(/a COMMIT needs a quorum's ACKs/);
      expect(goalLines.slice(0, 3).join(" ")).not.toMatch(/…/);
      for (let i = 0; i < 5; i++) keys("[");
      await waitFor(screen, /NARRATION — 5 back \(\[ older · \] newer\)/, "the narration scrolled back");
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
      expect(readFileSync(join(config, "zksim", "learn.json"), "utf8")).toMatch(/"zab\/quorum-commit"/);
    } finally {
      spawnSync("tmux", [...SOCKET, "kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX).concurrent("tui: e2e (tmux): learn compare 2pc 3pc — steps both runs, a crash hits both, 2PC blocks where 3PC finishes, q quits", async () => {
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
      spawnSync("tmux", [...SOCKET, "kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX).concurrent("tui: e2e (tmux): a Paxos lesson finished by commands: the BALLOTS pane shows the chosen majority", async () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-e2e-"));
    const name = `zksim-e2e-paxos-${process.pid}`;
    const { screen, keys, command } = tmuxApp(name, config, "paxos --lesson why-phase-1");
    try {
      const first = await waitFor(screen, /zksim learn paxos \[correct\] · seed 1 · step 0/, "the first frame");
      expect(first).toMatch(/BALLOTS \(a majority is 2 of 3\)/);
      expect(first.trimEnd().split("\n").length).toBeLessThanOrEqual(23);
      keys("Escape"); // the lesson's box
      await command("run 20ms", /✓ b1 p1\s+promised a1 a2 a3\s+accepted a1 a2 a3 \[1, A\]\s+chosen/);
      await command("fire t2", /^t2 \(start: begin phase 1 on p2\) is due now/m);
      await command("run 40ms", /PREDICT: p2 starts phase 1 with its own value/);
      keys("2");
      await waitFor(screen, /✗ the engine says 1: p2 proposed \[2, A\]/, "the engine's answer");
      keys("Escape");
      const reached = await command("run 40ms", /✓ GOAL REACHED/);
      expect(reached).toMatch(/p2 proposed \[2, A\]/);
      keys("Enter"); // the goal box closes; the run goes on where it stopped
      await command("run 40ms", /b2 p2\s+promised a1 a2 a3\s+accepted a1 a2 a3 \[2, A\]/);
      keys("q");
      await waitFor(screen, /EXIT:0/, "the app to exit");
      expect(readFileSync(join(config, "zksim", "learn.json"), "utf8")).toMatch(/"paxos\/why-phase-1"/);
    } finally {
      spawnSync("tmux", [...SOCKET, "kill-session", "-t", name]);
    }
  }, 300_000);

  it.skipIf(!TMUX).concurrent("tui: e2e (tmux): without a lesson the menu comes first; L returns to it; q quits", async () => {
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
      spawnSync("tmux", [...SOCKET, "kill-session", "-t", name]);
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
