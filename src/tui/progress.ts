/**
 * Which lessons the learner completed, kept in a small JSON file under the user's config
 * directory ($XDG_CONFIG_HOME/zksim/learn.json, else ~/.config/zksim/learn.json), never in
 * the project. A missing or unreadable file means nothing completed yet.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export function progressPath(): string {
  const base = process.env.XDG_CONFIG_HOME !== undefined && process.env.XDG_CONFIG_HOME !== "" ? process.env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "zksim", "learn.json");
}

export function completedLessons(path = progressPath()): Set<string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw err;
  }
  try {
    const data = JSON.parse(text) as { completed?: unknown };
    return new Set(Array.isArray(data.completed) ? data.completed.filter((x): x is string => typeof x === "string") : []);
  } catch (err) {
    if (err instanceof SyntaxError) return new Set(); // a damaged file: start afresh rather than refuse to teach
    throw err;
  }
}

/** Records `protocol/lesson` as completed. */
export function markCompleted(key: string, path = progressPath()): void {
  const done = completedLessons(path);
  if (done.has(key)) return;
  done.add(key);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ completed: [...done].sort() }, null, 2)}\n`);
}
