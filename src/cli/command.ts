/**
 * A `zksim` command: its name, its usage line, what it does, and its body. Each command is one
 * file under cli/commands/ (explore: cli/explore/command.ts) exporting one `Command`, and one
 * line of the registry (cli/commands/index.ts) makes `main` dispatch it, list it in `zksim
 * help` and answer `zksim <name> --help`.
 *
 * A body returns the exit code (0 pass, 1 a checker failed, others per command) and reports bad
 * input by throwing UserInputError (main prints its one line and exits 2).
 */
export interface Command {
  name: string;
  /** The arguments after the name: `<scenario> [--seed N] [--json]`. */
  args: string;
  /** What it does, one or more lines (no indentation: the usage text indents them). */
  help: string;
  run(argv: string[]): Promise<number>;
}
