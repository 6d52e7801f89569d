/**
 * Authentication settings of `zksim serve`, taken from the Java system properties ZooKeeper 3.8
 * reads for them. They arrive as `-Dkey=value` words — in `SERVER_JVMFLAGS`/`JVMFLAGS` (as
 * zkServer.sh passes them: `$SERVER_JVMFLAGS $JVMFLAGS`) and on `zksim serve`'s command line —
 * and from zoo.cfg, where 3.8 turns a key it does not know into the system property
 * `zookeeper.<key>` (so `authProvider.1=…` is `zookeeper.authProvider.1`). Later sources win,
 * zoo.cfg last, as in a JVM that parses zoo.cfg after start-up.
 *
 * Properties honoured:
 * - `zookeeper.DigestAuthenticationProvider.superDigest` = `super:<base64 sha1>`: an addauth
 *   digest whose digest equals it also gets `super` (every ACL check passes).
 * - `zookeeper.authProvider.*` = a provider class: registers its scheme (`sasl` is the one that
 *   changes anything: the `sasl` ACL scheme). An unknown class is a warning, as 3.8 logs it.
 * - `java.security.auth.login.config` = a JAAS file (also `--jaas FILE`): its `Server` section
 *   (`zookeeper.sasl.serverconfig` names another) lists the SASL DIGEST-MD5 users; a file without
 *   that section (an empty one) leaves the server without a SASL login, as 3.8 starts then.
 * - `zookeeper.superUser` / `zookeeper.superUser.*`: SASL users that also get `super`;
 *   `zookeeper.SASLAuthenticationProvider.superPassword` overrides user `super`'s password.
 */
import { UserInputError } from "../sim/errors.js";
import type { ZooKeeperServerConfig } from "../zk/server/zoo-keeper-server.js";
import { AUTH_PROVIDER_CLASSES, DEFAULT_AUTH_PROVIDERS, type AuthProviders } from "../zk/server/acl.js";
import { saslServerUsers } from "./jaas-config.js";

export const SUPER_DIGEST_PROPERTY = "zookeeper.DigestAuthenticationProvider.superDigest";
export const JAAS_PROPERTY = "java.security.auth.login.config";
const AUTH_PROVIDER_PREFIX = "zookeeper.authProvider.";
const SUPER_USER_PROPERTY = "zookeeper.superUser";
const SASL_SECTION_PROPERTY = "zookeeper.sasl.serverconfig";
const SUPER_PASSWORD_PROPERTY = "zookeeper.SASLAuthenticationProvider.superPassword";

export interface ServeAuth {
  superDigest?: string;
  authProviders: AuthProviders;
  /** DIGEST-MD5 users (JAAS `Server` section); absent = no SASL login, as without a JAAS file. */
  saslUsers?: ReadonlyMap<string, string>;
  saslSuperUsers: string[];
}

/** Whether `zookeeper.<key>` from zoo.cfg is one of the properties above (so not "unknown"). */
export function isAuthZooCfgKey(key: string): boolean {
  const property = `zookeeper.${key}`;
  return (
    property === SUPER_DIGEST_PROPERTY ||
    property.startsWith(AUTH_PROVIDER_PREFIX) ||
    property === SASL_SECTION_PROPERTY ||
    property === SUPER_PASSWORD_PROPERTY ||
    isSuperUserProperty(property)
  );
}

function isSuperUserProperty(key: string): boolean {
  return key === SUPER_USER_PROPERTY || key.startsWith(`${SUPER_USER_PROPERTY}.`);
}

/**
 * The `-Dkey[=value]` words of a JVM command line (other words — `-Xmx512m`, … — are not
 * properties and are skipped). Words split on blanks, as the scripts' unquoted `$JVMFLAGS` is.
 */
export function systemPropertiesOf(words: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const word of words) {
    if (!word.startsWith("-D") || word.length === 2) continue;
    const eq = word.indexOf("=");
    out.push(eq < 0 ? [word.slice(2), ""] : [word.slice(2, eq), word.slice(eq + 1)]);
  }
  return out;
}

/** The -D words of a JVMFLAGS-style environment variable's value. */
export function jvmFlagWords(value: string | undefined): string[] {
  return (value ?? "").split(/\s+/).filter((w) => w !== "");
}

/**
 * The authentication of the served ensemble from the merged properties. `readJaas(path)`
 * returns a JAAS file's text (the CLI reads it); `warn` gets one line per ignored setting.
 */
export function serveAuthFrom(props: ReadonlyMap<string, string>, readJaas: (path: string) => string, warn: (line: string) => void): ServeAuth {
  const providers = new Set(DEFAULT_AUTH_PROVIDERS);
  const auth: ServeAuth = { authProviders: providers, saslSuperUsers: [] };
  for (const [key, value] of props) {
    if (key.startsWith(AUTH_PROVIDER_PREFIX)) {
      const scheme = AUTH_PROVIDER_CLASSES.get(value);
      if (scheme === undefined) warn(`${key}: problems loading ${value} (zksim knows ${[...AUTH_PROVIDER_CLASSES.keys()].join(", ")}); ignored`);
      else providers.add(scheme);
    } else if (isSuperUserProperty(key)) {
      auth.saslSuperUsers.push(value);
    }
  }
  const superDigest = props.get(SUPER_DIGEST_PROPERTY);
  if (superDigest !== undefined) {
    if (!/^[^:]*:[A-Za-z0-9+/]{27}=$/.test(superDigest)) throw new UserInputError(`${SUPER_DIGEST_PROPERTY}: expected user:<base64 sha1> (28 characters after the colon, as DigestAuthenticationProvider.generateDigest prints it), got "${superDigest}"`);
    auth.superDigest = superDigest;
  }
  const jaas = props.get(JAAS_PROPERTY);
  if (jaas !== undefined) {
    const users = saslServerUsers(readJaas(jaas), jaas, props.get(SASL_SECTION_PROPERTY) ?? "Server");
    const superPassword = props.get(SUPER_PASSWORD_PROPERTY);
    if (superPassword !== undefined && users?.has("super") === true) users.set("super", superPassword);
    if (users !== undefined) auth.saslUsers = users;
  }
  return auth;
}

/** The server config fields of `auth`. */
export function serverAuthConfig(auth: ServeAuth): Partial<ZooKeeperServerConfig> {
  const out: Partial<ZooKeeperServerConfig> = { authProviders: auth.authProviders, saslSuperUsers: auth.saslSuperUsers };
  if (auth.superDigest !== undefined) out.superDigest = auth.superDigest;
  if (auth.saslUsers !== undefined) out.saslUsers = auth.saslUsers;
  return out;
}
