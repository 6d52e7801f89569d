/**
 * The `--variant` names of the commit-protocol workloads: the workload's `script` names the
 * protocol build ("2pc", "3pc"), and a variant swaps in a broken twin ("2pc-abort-in-doubt")
 * or, for 3PC, the book's bare timeout rules ("3pc-book-timeouts").
 */
export const COMMIT_SCRIPT_VARIANTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "2pc": {
    "abort-in-doubt": "2pc-abort-in-doubt",
    "commit-on-timeout": "2pc-commit-on-timeout",
    "decide-before-log": "2pc-decide-before-log",
    "vote-before-log": "2pc-vote-before-log",
  },
  "3pc": {
    "commit-uncertain": "3pc-commit-uncertain",
    "book-timeouts": "3pc-book-timeouts",
  },
};
