/**
 * The text forms of a quorum configuration (3.5+ dynamic configuration): one server spec
 * (`QuorumPeer.QuorumServer(sid, "host:port:port[:role][;[clientHost:]clientPort]")`), and a whole
 * config (`QuorumPeerConfig.parseDynamicConfig`: `server.N=spec` lines, `version=<hex>`).
 *
 * Addressing: in a simulation ("simulated") a spec's host is the simulated node's name and the
 * two quorum ports are checked to be ports and then not used (every peer listens on 2888/3888 of
 * its own node). Under `zksim serve` ("real") the specs carry the addresses real clients see
 * (`127.0.0.1:2890:3890`), kept as given and printed back, and server N runs on node `sN`.
 * Errors come back as a message (the reconfig answers BADARGUMENTS with it), never as a throw.
 */
import { QuorumVerifier, type LearnerType, type QuorumServer } from "./quorum-verifier.js";

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** How a spec's host:ports name the node a server runs on (see the header). */
export type ServerAddressing = "simulated" | "real";

const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

function isPort(text: string): boolean {
  if (!/^\d{1,5}$/.test(text)) return false;
  const n = Number(text);
  return n > 0 && n <= 65535;
}

/** One `server.N`'s value. `requireClient`: an incremental joiner must give its client port. */
export function parseServerSpec(sid: number, spec: string, requireClient: boolean, addressing: ServerAddressing = "simulated"): Parsed<QuorumServer> {
  const [serverPart = "", clientPart, ...rest] = spec.trim().split(";");
  if (rest.length > 0) return fail(`server.${sid}: too many ';' in "${spec}"`);
  const parts = serverPart.split(":");
  if (parts.length < 3 || parts.length > 4) return fail(`server.${sid}: expected host:port:port[:role], got "${serverPart}"`);
  const [host = "", quorumPort = "", electionPort = "", roleText = "participant"] = parts;
  if (host === "") return fail(`server.${sid}: empty host`);
  if (!isPort(quorumPort) || !isPort(electionPort)) return fail(`server.${sid}: bad port in "${serverPart}"`);
  if (roleText !== "participant" && roleText !== "observer") return fail(`server.${sid}: unknown role "${roleText}"`);
  const role: LearnerType = roleText;
  const server: QuorumServer = addressing === "real" ? { sid, host: `s${sid}`, role, address: `${host}:${quorumPort}:${electionPort}` } : { sid, host, role };
  if (clientPart === undefined) {
    if (requireClient) return fail("Wrong format of server string - each server should have 3 ports specified");
    return { ok: true, value: server };
  }
  const client = clientPart.trim();
  const colon = client.lastIndexOf(":");
  const clientPort = colon < 0 ? client : client.slice(colon + 1);
  if (!isPort(clientPort)) return fail(`server.${sid}: bad client port in "${clientPart}"`);
  // 3.8 prints a bare client port as 0.0.0.0:port.
  return { ok: true, value: { ...server, clientAddress: colon < 0 ? `0.0.0.0:${clientPort}` : client } };
}

/** `server.N` → N, or undefined when the key is not a server key. */
function sidOfKey(key: string): number | undefined {
  const m = /^server\.(\d{1,18})$/.exec(key.trim());
  if (m === null) return undefined;
  const sid = Number(m[1]);
  return Number.isSafeInteger(sid) ? sid : undefined;
}

/** `server.N=spec` → the server; `requireClient` as for `parseServerSpec`. */
export function parseServerEntry(entry: string, requireClient: boolean, addressing: ServerAddressing = "simulated"): Parsed<QuorumServer> {
  const eq = entry.indexOf("=");
  if (eq < 0) return fail("Wrong format of server string");
  const sid = sidOfKey(entry.slice(0, eq));
  if (sid === undefined) return fail(`not a server key: "${entry.slice(0, eq).trim()}"`);
  return parseServerSpec(sid, entry.slice(eq + 1), requireClient, addressing);
}

/**
 * A whole configuration, lines (or commas) of `server.N=spec`, with an optional `version=<hex>`
 * (absent: `version` below). Any other key is refused (hierarchical quorums are not modelled).
 */
export function parseConfigText(text: string, version: bigint, addressing: ServerAddressing = "simulated"): Parsed<QuorumVerifier> {
  const servers: QuorumServer[] = [];
  let v = version;
  for (const raw of text.replace(/,/g, "\n").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    const key = eq < 0 ? line : line.slice(0, eq).trim();
    if (key === "version") {
      const hex = line.slice(eq + 1).trim();
      if (!/^[0-9a-fA-F]{1,16}$/.test(hex)) return fail(`bad version "${hex}"`);
      v = BigInt(`0x${hex}`);
      continue;
    }
    const s = parseServerEntry(line, false, addressing);
    if (!s.ok) return s;
    if (servers.some((o) => o.sid === s.value.sid)) return fail(`duplicate server.${s.value.sid}`);
    servers.push(s.value);
  }
  if (!servers.some((s) => s.role === "participant")) return fail("the configuration has no participant");
  return { ok: true, value: new QuorumVerifier(servers, v) };
}
