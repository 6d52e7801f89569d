/**
 * The whole-API actors' vocabulary: what an actor draws for each argument of a call — paths
 * (under the root `/wa`, in the subtrees `/wa/tK`, two levels of names below, sequential prefixes,
 * names it has seen), data (short, empty, null, long, multi-byte), versions (right, wrong, −1),
 * ACLs (every scheme, valid and invalid, random permissions) and credentials (every scheme, right
 * and wrong passwords, the super user). Pure draws from the actor's stream; nothing here calls
 * the client.
 */
import type { Rng } from "../../sim/rng.js";
import { generateDigest } from "../../zk/server/acl.js";
import { Perms, type ACL } from "../../zk/proto/records.js";
import { ACL_KINDS, pickWeighted, type AclKind, type ApiPlan } from "../workloads/api-swarm-shape.js";

/** The root every actor works under (created at the start, OPEN_ACL_UNSAFE). */
export const API_ROOT = "/wa";

/** The users actors authenticate as (`user:password`), and a wrong password for one of them. */
export const USERS = ["alice:secret", "bob:hunter2", "carol:pw"] as const;
const WRONG = ["alice:wrong", "bob:", "mallory:x"] as const;

/** The super user's credentials: its digest is the servers' superDigest. */
export const SUPER_CREDENTIALS = "super:zksim-admin";
export const SUPER_DIGEST = generateDigest(SUPER_CREDENTIALS);

export function subtreePath(t: number): string {
  return `${API_ROOT}/t${t}`;
}

/** Draws of one actor: its stream, its plan, and where it stands (its node's address, its chroot). */
export class ApiDraws {
  constructor(
    readonly rng: Rng,
    private readonly plan: ApiPlan,
    /** The addresses of every client node, its own first. */
    private readonly addresses: readonly string[],
  ) {}

  /** A node path (server form) in `subtree` (or any subtree): the subtree itself, one or two names below. */
  nodePath(subtree?: number): string {
    const r = this.rng;
    const t = subtree ?? r.int(0, this.plan.subtrees - 1);
    const base = subtreePath(t);
    const depth = r.int(0, 5);
    if (depth === 0) return base;
    const a = `${base}/n${r.int(0, this.plan.names - 1)}`;
    return depth <= 3 ? a : `${a}/n${r.int(0, this.plan.names - 1)}`;
  }

  /** A sequential prefix under a drawn parent: `…/s-` or `…/` (the name is then only the counter). */
  sequentialPrefix(subtree?: number): string {
    const parent = this.rng.chance(0.6) ? subtreePath(subtree ?? this.rng.int(0, this.plan.subtrees - 1)) : this.nodePath(subtree);
    return this.rng.chance(0.8) ? `${parent}/s-` : `${parent}/`;
  }

  data(): string | null | Uint8Array {
    const r = this.rng;
    const k = r.int(0, 19);
    if (k === 0) return null;
    if (k === 1) return "";
    if (k === 2) return `é-ü-${r.int(0, 999)}-✓`;
    if (k === 3) return "x".repeat(r.int(65, 300));
    if (k === 4) return Uint8Array.from({ length: r.int(1, 40) }, () => r.int(0, 255));
    return `v${r.int(0, 99_999)}`;
  }

  /** An expected version: −1, the one last seen (`known`), or a wrong one. */
  version(known: number | undefined): number {
    const r = this.rng;
    const k = r.int(0, 9);
    if (k < 4 || (known === undefined && k < 8)) return -1;
    if (k < 8 && known !== undefined) return known;
    return known === undefined ? r.int(0, 3) : known + r.pick([1, 2, -2]);
  }

  /** An ACL of a kind the plan weighs. */
  acl(): ACL[] {
    const kind = pickWeighted(this.rng, this.plan.acls, ACL_KINDS) ?? "open";
    return this.aclOf(kind);
  }

  private aclOf(kind: AclKind): ACL[] {
    const r = this.rng;
    switch (kind) {
      case "open":
        return [{ perms: Perms.ALL, id: { scheme: "world", id: "anyone" } }];
      case "read-only":
        return [{ perms: Perms.READ, id: { scheme: "world", id: "anyone" } }];
      case "creator":
        return [{ perms: this.perms(), id: { scheme: "auth", id: "" } }];
      case "digest":
        return [{ perms: this.perms(), id: { scheme: "digest", id: generateDigest(r.pick(USERS)) } }];
      case "ip":
        return [{ perms: this.perms(), id: { scheme: "ip", id: this.ipExpr() } }];
      case "mixed": {
        const n = r.int(2, 3);
        const kinds: AclKind[] = ["read-only", "creator", "digest", "ip", "digest"];
        const out = Array.from({ length: n }, () => this.aclOf(r.pick(kinds))[0]!);
        if (r.chance(0.3)) out.push(out[0]!);
        return out;
      }
      case "invalid":
        return [r.pick<ACL>([
          { perms: Perms.ALL, id: { scheme: "world", id: "someone" } },
          { perms: Perms.ALL, id: { scheme: "super", id: "" } },
          { perms: Perms.READ, id: { scheme: "digest", id: "no-colon" } },
          { perms: Perms.ALL, id: { scheme: "ip", id: "300.1.2.3" } },
          { perms: Perms.ALL, id: { scheme: "ip", id: "10.0.0.1/40" } },
          { perms: Perms.ALL, id: { scheme: "sasl", id: "bob" } },
          { perms: Perms.ALL, id: { scheme: "nosuchscheme", id: "x" } },
        ])];
    }
  }

  /** Random permission bits: ALL half the time, otherwise any subset (none included). */
  private perms(): number {
    return this.rng.chance(0.5) ? Perms.ALL : this.rng.int(0, Perms.ALL);
  }

  /** An `ip` id: this node's address, another client's, a subnet holding them, or one that does not. */
  private ipExpr(): string {
    const r = this.rng;
    const own = this.addresses[0]!;
    switch (r.int(0, 4)) {
      case 0:
        return own;
      case 1:
        return r.pick(this.addresses);
      case 2:
        return `${own.split(".").slice(0, 3).join(".")}.0/24`;
      case 3:
        return "10.0.0.0/8";
      default:
        return "192.168.1.1";
    }
  }

  /** Credentials for `addAuthInfo`: mostly digest (right, wrong, super), sometimes ip, sometimes a scheme that fails the handle. */
  credential(): { scheme: string; auth: string } {
    const r = this.rng;
    const k = r.int(0, 19);
    if (k < 10) return { scheme: "digest", auth: r.pick(USERS) };
    if (k < 13) return { scheme: "digest", auth: r.pick(WRONG) };
    if (k < 15) return { scheme: "digest", auth: r.chance(0.7) ? SUPER_CREDENTIALS : "super:wrong" };
    if (k < 17) return { scheme: "ip", auth: this.addresses[0]! };
    return { scheme: r.pick(["world", "auth", "super", "sasl-nope"]), auth: "anyone" };
  }
}
