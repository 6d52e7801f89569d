/**
 * Chroot (`ZooKeeper.prependChroot`, `ClientCnxn.stripChroot`): a client created with
 * `"hosts/app"` sees `/app/x` as `/x`. Paths sent are prefixed; paths received (created
 * names, watch events) are stripped.
 *
 * Invariants: `strip(prepend(p)) === p` for every valid client path `p`; server paths outside
 * the chroot (only `/zookeeper/...` is expected) come back unchanged, as Java leaves them.
 */
export class Chroot {
  constructor(readonly path: string | undefined) {}

  prepend(clientPath: string): string {
    if (this.path === undefined) return clientPath;
    return clientPath.length === 1 ? this.path : this.path + clientPath;
  }

  strip(serverPath: string): string {
    const root = this.path;
    if (root === undefined) return serverPath;
    if (serverPath === root) return "/";
    if (serverPath.startsWith(root + "/")) return serverPath.substring(root.length);
    return serverPath;
  }
}
