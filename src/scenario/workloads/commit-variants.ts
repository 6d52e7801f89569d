/**
 * The `--variant` names of the commit-protocol workloads: the workload's `script` names the
 * protocol build ("2pc", "3pc"), and a variant swaps in a broken twin ("2pc-abort-in-doubt")
 * or, for 3PC, the book's bare timeout rules ("3pc-book-timeouts"). The twins themselves are
 * listed (and explained) next to each protocol's messages.
 */
import { TWO_PC_VARIANTS } from "../../protocols/two-phase-commit/messages.js";
import { THREE_PC_VARIANTS } from "../../protocols/three-phase-commit/messages.js";

const scripts = (protocol: string, variants: readonly string[]) => Object.fromEntries(variants.map((v) => [v, `${protocol}-${v}`]));

export const COMMIT_SCRIPT_VARIANTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "2pc": scripts("2pc", TWO_PC_VARIANTS),
  "3pc": scripts("3pc", THREE_PC_VARIANTS),
};
