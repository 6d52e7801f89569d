/**
 * The book's vocabulary for a protocol whose messages are named by their `kind` (the teaching
 * models: prepare, promise, accept…): a pending message's book name and detail, a timer's name
 * from its label, and the book name of a traced message type — the three adapter methods, from
 * the protocol's own tables.
 */
import type { PendingMessage } from "../sim/network.js";

export function kindVocabulary<M>(bookOfType: (type: string) => string | undefined, detailOf: (message: M) => string, timerNames: Readonly<Record<string, string>>) {
  return {
    bookName: (m: PendingMessage) => ({ book: bookOfType(m.type) ?? m.type, detail: detailOf(m.payload as M) }),
    timerName: (label: string) => timerNames[label] ?? label,
    bookOfType,
  };
}
