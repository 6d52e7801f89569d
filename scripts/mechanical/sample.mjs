// The fixed-seed sample of mechanical mutants, and how a sample drawn once is found again in
// sources that changed since (the after figure runs the before figure's sample).
//
// Invariants: drawSample depends only on the mutants' keys and the seed (not on ids, file
// order or the machine): the population is sorted by key, then a seeded shuffle (mulberry32,
// Fisher–Yates) picks the first `size`. matchSample finds each sampled key among the current
// mutants; a key whose code is gone is reported as gone, never replaced by another mutant.

/** mulberry32: a small 32-bit PRNG, enough to shuffle a list reproducibly. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `size` keys drawn from the mutants by `seed`, in draw order. */
export function drawSample(mutants, seed, size) {
  const keys = [...new Set(mutants.map((m) => m.key))].sort();
  const rand = mulberry32(seed);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  return keys.slice(0, Math.min(size, keys.length));
}

/** The current mutants of the sampled keys: { found: [mutant…] in sample order, gone: [key…] }. */
export function matchSample(keys, mutants) {
  const byKey = new Map(mutants.map((m) => [m.key, m]));
  const found = [];
  const gone = [];
  for (const key of keys) {
    const m = byKey.get(key);
    if (m === undefined) gone.push(key);
    else found.push(m);
  }
  return { found, gone };
}

/** A key shown to a reader: file, scope, operator, "original → replacement". */
export function describeKey(key) {
  const [file, scope, operator, original, replacement, rank] = key.split("\u0000");
  const cut = (s) => (s.length > 70 ? `${s.slice(0, 67)}…` : s);
  const what = operator.startsWith("remove-") ? `removed: ${cut(original)}` : `${cut(original)} → ${cut(replacement)}`;
  return `${file} ${scope} [${operator}] ${what}${rank !== "0" ? ` (#${Number(rank) + 1})` : ""}`;
}
