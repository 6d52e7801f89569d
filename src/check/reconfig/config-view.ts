/**
 * The reconfig checkers' own reading of a configuration as the trace carries it (the text of
 * /zookeeper/config: `server.N=host:port:port:role[;client]` lines and `version=<hex>`). Shares
 * no code with the server's parser: a checker that parsed with the server's code could share its
 * bugs. A text it cannot read is reported by the caller as a violation.
 */
export interface ConfigView {
  readonly version: bigint;
  readonly voters: ReadonlySet<number>;
  readonly members: ReadonlySet<number>;
}

/** How many config texts `readConfig` remembers. */
const CONFIG_MEMO = 64;
const configByText = new Map<string, ConfigView | string>();

/**
 * The config, or a sentence saying what is wrong with the text. Read once per text: every server
 * announces the same few configs (each activation, each proposal), and every checker of configs
 * reads them; a `ConfigView` is never written to, so one reading serves them all. Bounded: the
 * memo starts over past `CONFIG_MEMO` texts.
 */
export function readConfig(text: string): ConfigView | string {
  let c = configByText.get(text);
  if (c === undefined) {
    if (configByText.size >= CONFIG_MEMO) configByText.clear();
    configByText.set(text, (c = parseConfig(text)));
  }
  return c;
}

function parseConfig(text: string): ConfigView | string {
  const voters = new Set<number>();
  const members = new Set<number>();
  let version: bigint | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const v = /^version=([0-9a-f]+)$/.exec(line);
    if (v !== null) {
      version = BigInt(`0x${v[1]}`);
      continue;
    }
    const m = /^server\.(\d+)=([^;]*)(;.*)?$/.exec(line);
    if (m === null) return `unreadable config line "${line}"`;
    const sid = Number(m[1]);
    const role = (m[2] ?? "").split(":")[3] ?? "participant";
    members.add(sid);
    if (role === "participant") voters.add(sid);
    else if (role !== "observer") return `server.${sid} has role "${role}"`;
  }
  if (version === undefined) return "the config has no version= line";
  return { version, voters, members };
}

/** A majority of `voters` among `sids` (only voters count). */
export function isQuorum(voters: ReadonlySet<number>, sids: ReadonlySet<number>): boolean {
  let n = 0;
  for (const sid of sids) if (voters.has(sid)) n++;
  return n * 2 > voters.size;
}

export function describe(c: ConfigView): string {
  return `config 0x${c.version.toString(16)} (voters ${[...c.voters].sort((a, b) => a - b).join(",")})`;
}
