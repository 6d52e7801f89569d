/**
 * `ContainerManager` (docs/zookeeper.md §1.2): on the leader (or a standalone server), every
 * `checkIntervalMs` it deletes, through an internal `deleteContainer` request, each container
 * that has had children and has none now (stored cversion > 0), and each TTL node with no
 * children whose `mtime` is older than its TTL by the server's clock.
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { ttlOfEphemeralOwner, type DataTree } from "./data-tree.js";

export class ContainerManager {
  private timer: TimerHandle | undefined;
  private running = true;

  constructor(
    private readonly ctx: NodeContext,
    private readonly checkIntervalMs: number,
    private readonly tree: () => DataTree,
    private readonly deleteContainer: (path: string) => void,
    private readonly nowMs: () => number,
  ) {
    this.schedule();
  }

  private schedule(): void {
    if (this.running) this.timer = this.ctx.setTimerMs(this.checkIntervalMs, () => this.check(), "container-check");
  }

  /** Paths that are due for deletion now (in path order). */
  candidates(): string[] {
    const tree = this.tree();
    const out: string[] = [];
    for (const path of tree.getContainers()) {
      const node = tree.getNode(path);
      if (node !== undefined && node.children.size === 0 && node.stat.cversion > 0) out.push(path);
    }
    const now = this.nowMs();
    for (const path of tree.getTtls()) {
      const node = tree.getNode(path);
      if (node === undefined || node.children.size > 0) continue;
      if (now - node.stat.mtime > ttlOfEphemeralOwner(node.stat.ephemeralOwner)) out.push(path);
    }
    return out;
  }

  private check(): void {
    for (const path of this.candidates()) this.deleteContainer(path);
    this.schedule();
  }

  shutdown(): void {
    this.running = false;
    this.ctx.cancelTimer(this.timer);
  }
}
