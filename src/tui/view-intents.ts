/**
 * The view-only intents both screens answer the same way (the single-run app and the compare
 * screen): the help overlay, selecting the next node, and the command line (start, edit,
 * submit). Pure: the new view fields, and the command text a submit hands to the session.
 */
import type { Mode } from "./controller.js";
import type { Intent } from "./keys.js";

export interface SharedView {
  mode: Mode;
  running: boolean;
  node: number;
  message: string;
}

export function sharedViewIntent(s: SharedView, intent: Intent, nodes: readonly { id: string }[]): { patch: Partial<SharedView>; command?: string } | undefined {
  switch (intent.kind) {
    case "help":
      return { patch: { mode: s.mode.kind === "help" ? { kind: "normal" } : { kind: "help", scroll: 0 } } };
    case "close":
      return { patch: { mode: { kind: "normal" } } };
    case "next-node": {
      const node = (s.node + 1) % Math.max(1, nodes.length);
      return { patch: { node, message: `node ${nodes[node]?.id ?? ""} selected (c crash · r restart · p pause/resume · i isolate)` } };
    }
    case "command-start":
      return { patch: { mode: { kind: "command", text: "" }, running: false } };
    case "command-edit":
      return s.mode.kind !== "command" ? { patch: {} } : { patch: { mode: { kind: "command", text: intent.backspace ? s.mode.text.slice(0, -1) : s.mode.text + intent.text } } };
    case "command-submit": {
      if (s.mode.kind !== "command") return { patch: {} };
      const text = s.mode.text.trim();
      return { patch: { mode: { kind: "normal" } }, ...(text === "" ? {} : { command: text }) };
    }
    default:
      return undefined;
  }
}
