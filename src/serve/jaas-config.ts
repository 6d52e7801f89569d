/**
 * A JAAS login configuration file (`-Djava.security.auth.login.config=FILE`), read as the JDK's
 * `ConfigFile` reads it, for what ZooKeeper 3.8's server takes from it: the `Server` section's
 * `org.apache.zookeeper.server.auth.DigestLoginModule` options `user_<name>="password"` — the
 * SASL DIGEST-MD5 users (`SaslServerCallbackHandler`).
 *
 * Grammar: `Name { LoginModuleClass flag key=value … ; … };`, values quoted (`"…"`, `\` escapes)
 * or bare, `//` and `/* *\/` comments. Invariants: a syntax error is a UserInputError naming the
 * file and line; a `Server` section whose modules are not DigestLoginModule (Kerberos) is an error
 * too, since the simulation has no KDC; sections other than the server's are ignored (a file
 * shared with clients carries a `Client` section), and a file without the server's section
 * (an empty one too) means no SASL login.
 */
import { UserInputError } from "../sim/errors.js";

export const DIGEST_LOGIN_MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule";

export interface JaasEntry {
  loginModule: string;
  flag: string;
  options: Map<string, string>;
}

interface Token {
  text: string;
  quoted: boolean;
  line: number;
}

function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\]|\\.)*)"|([{};=])|([^\s{};="/]+)/y;
  let line = 1;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) throw new UserInputError(`${file}:${line}: unexpected character "${text[at]}" in the JAAS configuration`);
    if (m[1] !== undefined) tokens.push({ text: m[1].replace(/\\(.)/g, "$1"), quoted: true, line });
    else if (m[2] !== undefined || m[3] !== undefined) tokens.push({ text: (m[2] ?? m[3])!, quoted: false, line });
    line += m[0].split("\n").length - 1;
    at = re.lastIndex;
  }
  return tokens;
}

/** Every section of the file: name → its login module entries. */
export function parseJaasConfig(text: string, file = "jaas.conf"): Map<string, JaasEntry[]> {
  const tokens = tokenize(text, file);
  const sections = new Map<string, JaasEntry[]>();
  let i = 0;
  const next = (what: string): Token => {
    const t = tokens[i++];
    if (t === undefined) throw new UserInputError(`${file}: the JAAS configuration ends where ${what} was expected`);
    return t;
  };
  const expect = (symbol: string): void => {
    const t = next(`"${symbol}"`);
    if (t.quoted || t.text !== symbol) throw new UserInputError(`${file}:${t.line}: expected "${symbol}", got "${t.text}"`);
  };
  while (i < tokens.length) {
    const name = next("a section name").text;
    expect("{");
    const entries: JaasEntry[] = [];
    while (tokens[i]?.text !== "}") {
      const loginModule = next("a login module class").text;
      const flag = next("a control flag").text;
      const options = new Map<string, string>();
      while (tokens[i]?.text !== ";") {
        const key = next("an option or \";\"").text;
        expect("=");
        options.set(key, next(`the value of ${key}`).text);
      }
      expect(";");
      entries.push({ loginModule, flag, options });
    }
    expect("}");
    expect(";");
    sections.set(name, entries);
  }
  return sections;
}

/**
 * The DIGEST-MD5 users of `section` (3.8: `zookeeper.sasl.serverconfig`, default `Server`);
 * undefined when the file has no such section. 3.8's `ServerCnxnFactory.configureSaslLogin` then
 * starts without a SASL login, as with no JAAS file at all: only a file the JDK cannot read
 * (a syntax error, a missing file) stops the server.
 */
export function saslServerUsers(text: string, file: string, section = "Server"): Map<string, string> | undefined {
  const entries = parseJaasConfig(text, file).get(section);
  if (entries === undefined) return undefined;
  const users = new Map<string, string>();
  for (const e of entries) {
    if (e.loginModule !== DIGEST_LOGIN_MODULE) throw new UserInputError(`${file}: ${section} uses ${e.loginModule}; only ${DIGEST_LOGIN_MODULE} (SASL DIGEST-MD5) is simulated`);
    for (const [key, value] of e.options) if (key.startsWith("user_")) users.set(key.slice("user_".length), value);
  }
  return users;
}
