/**
 * Chroot (`ZooKeeper.prependChroot`, `ClientCnxn`'s stripping): a client created with
 * `"hosts/app"` sees `/app/x` as `/x`. Paths sent are prefixed; some paths received are
 * stripped, each the way Java 3.8's client strips it:
 *
 * - `prepend`: the chroot for "/", chroot + path otherwise (so a sequential create of "/" names a
 *   sibling of the chroot: `/app` + counter);
 * - `stripCreated` (create, create2): the chroot's length cut off the server's name, whatever it
 *   is — `/app0000000002` comes back as `0000000002`;
 * - `stripEvent` (watch events): "/" for the chroot itself, the rest of a longer path cut the same
 *   way, a shorter one left as it is.
 * Java leaves a multi's created names and getEphemerals' paths as the server names them.
 *
 * Invariants: `stripCreated(prepend(p)) === p` and `stripEvent(prepend(p)) === p` for every
 * valid client path `p` other than "/"; `chroot + stripCreated(s) === s` for every server name
 * `s` a create under the chroot can return.
 */
export class Chroot {
  constructor(readonly path: string | undefined) {}

  prepend(clientPath: string): string {
    if (this.path === undefined) return clientPath;
    return clientPath.length === 1 ? this.path : this.path + clientPath;
  }

  stripCreated(serverPath: string): string {
    return this.path === undefined ? serverPath : serverPath.substring(this.path.length);
  }

  stripEvent(serverPath: string): string {
    const root = this.path;
    if (root === undefined) return serverPath;
    if (serverPath === root) return "/";
    return serverPath.length > root.length ? serverPath.substring(root.length) : serverPath;
  }
}
