/**
 * Zxids and session ids as the trace writes them ("0x100000002", or decimal), read back as
 * `bigint`. Memoised: every checker reads the same few zxids (a txn's on every server, a
 * reply's and its Stat's) again and again, and parsing a BigInt is slow.
 */
export function parseZxidText(text: string): bigint | undefined {
  // The checkers of one event read its zxid one after another: the last text answers first.
  if (text === lastText) return lastParsed;
  let parsed = PARSED.get(text);
  if (parsed === undefined) {
    if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) return undefined;
    parsed = BigInt(text);
    if (PARSED.size >= PARSED_LIMIT) PARSED.clear();
    PARSED.set(text, parsed);
  }
  lastText = text;
  lastParsed = parsed;
  return parsed;
}
const PARSED = new Map<string, bigint>();
const PARSED_LIMIT = 8192;
let lastText: string | undefined;
let lastParsed: bigint | undefined;
