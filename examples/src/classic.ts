/**
 * The three classic mistakes of code written against ZooKeeper, each as a user script with the
 * checker that catches it — TypeScript, loaded as it is by `zksim replay --module ./src/classic.ts`.
 *
 * 1. `staleConfig` — a versioned config store read without `sync`: c1 publishes versions and
 *    tells c2 "version N is out" the moment ZooKeeper confirms it (here a shared variable; in
 *    a service, a message); c2 reads the config from its own server, which may lag the leader.
 *    Caught by the built-in, opt-in `readAfterConfirmedWrite`; `syncedConfig` (sync before the
 *    read) passes it.
 * 2. `trustingLeader` — leadership trusted after a connection loss: the leader keeps acting
 *    while its session is not connected, though its ephemeral node may be gone with it.
 * 3. `retryingQueue` — CONNECTIONLOSS on a create treated as failure: the producer enqueues the
 *    job again, and the first create may well have happened: the job is queued twice.
 *
 * Each survives what correct code must survive (a lost connection, an expired session: a new
 * one), so that when a property fails, it is the mistake that fails it, not the script.
 */
import { Code, CreateMode, Ids, defineChecker, defineUserScript, readAfterConfirmedWrite } from "zksim";
import type { ClientNode, World, ZooKeeper } from "zksim";

/** Whether `err` is a ZooKeeper error with `code` (by value: the check holds across copies of the package). */
function isCode(err: unknown, code: number): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}

const RUN_UNTIL_MS = 22_000;

/**
 * A client's connection that outlives its sessions: after SESSIONEXPIRED the handle is dead for
 * good, and the next operation runs on a new session.
 */
class Connection {
  private zk: Promise<ZooKeeper>;

  constructor(private readonly node: ClientNode) {
    this.zk = node.connect();
  }

  /** `op` on the current session, once: a new session next time if this one has expired. */
  async once<T>(op: (zk: ZooKeeper) => Promise<T>): Promise<T> {
    const zk = await this.zk;
    try {
      return await op(zk);
    } catch (err) {
      if (isCode(err, Code.SESSIONEXPIRED) && (await this.zk) === zk) this.zk = this.node.connect();
      throw err;
    }
  }

  /** `op` until it is answered: again after CONNECTIONLOSS or on a new session (only for operations that may be repeated). */
  async retrying<T>(op: (zk: ZooKeeper) => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await this.once(op);
      } catch (err) {
        if (!isCode(err, Code.CONNECTIONLOSS) && !isCode(err, Code.SESSIONEXPIRED)) throw err;
      }
      await this.node.sleepMs(100);
    }
  }

  /** A connection whose first session is open. */
  static async open(node: ClientNode): Promise<Connection> {
    const c = new Connection(node);
    await c.zk;
    return c;
  }

  async close(): Promise<void> {
    await (await this.zk).close();
  }
}

// ---- 1. a config read without sync ----

async function configStore(world: World, syncFirst: boolean): Promise<void> {
  const writer = world.client("c1");
  const reader = world.client("c2");
  const w = await Connection.open(writer);
  const r = await Connection.open(reader);
  await w.retrying((zk) => zk.create("/config", "v0", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT).catch((err) => (isCode(err, Code.NODEEXISTS) ? "/config" : Promise.reject(err))));
  let published = 0;
  const publish = async () => {
    for (let v = 1; writer.nowMs() < RUN_UNTIL_MS; v++) {
      await w.retrying((zk) => zk.setData("/config", `v${v}`, -1));
      published = v;
      await writer.sleepMs(300);
    }
  };
  const follow = async () => {
    let seen = 0;
    while (reader.nowMs() < RUN_UNTIL_MS) {
      if (published > seen) {
        seen = published;
        try {
          const { data } = await r.once(async (zk) => {
            if (syncFirst) await zk.sync("/config");
            return zk.getData("/config");
          });
          world.label(new TextDecoder().decode(data ?? new Uint8Array()) === `v${seen}` ? "read-fresh" : "read-newer-or-stale");
        } catch (err) {
          if (!isCode(err, Code.CONNECTIONLOSS) && !isCode(err, Code.SESSIONEXPIRED)) throw err;
          world.label("read-lost");
        }
      }
      await reader.sleepMs(50);
    }
  };
  await Promise.all([publish(), follow()]);
  await w.close();
  await r.close();
}

/** The bug: c2 reads what c1 confirmed without sync. */
export const staleConfig = defineUserScript({
  module: import.meta.url,
  export: "staleConfig",
  checkers: [readAfterConfirmedWrite],
  labels: ["read-fresh", "read-lost"],
  run: (world) => configStore(world, false),
});

/** The fix: sync("/config") before the read. */
export const syncedConfig = defineUserScript({
  module: import.meta.url,
  export: "syncedConfig",
  checkers: [readAfterConfirmedWrite],
  labels: ["read-fresh", "read-lost"],
  run: (world) => configStore(world, true),
});

// ---- 2. leadership trusted after a connection loss ----

/** Only the client whose candidate node is the lowest acts as leader; `act` events by anyone else are violations. */
const oneLeaderActs = defineChecker({
  name: "classic.one-leader-acts",
  kinds: ["user.event", "zk.session.expire"],
  start: () => ({ leaderSession: null as string | null, leader: null as string | null }),
  onEvent(state, event, report) {
    if (event.kind === "zk.session.expire") {
      if (state.leaderSession === event.fields.session) state.leader = state.leaderSession = null;
      return;
    }
    const { name, client, data } = event.fields;
    if (name === "elected") {
      state.leader = client;
      state.leaderSession = String(data.session);
    }
    if (name === "act" && state.leader !== client) report(`${client} acted as leader at ${event.atMs} ms while ${state.leader ?? "nobody"} was the leader`);
    if (name === "resigned" && state.leader === client) state.leader = state.leaderSession = null;
  },
});

async function campaign(world: World, id: string, zk: ZooKeeper, node: ClientNode): Promise<void> {
  const me = await zk.create("/election/n-", id, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
  for (;;) {
    const children = (await zk.getChildren("/election")).sort();
    if (`/election/${children[0]}` === me) break;
    await node.sleepMs(200);
  }
  node.record("elected", { session: `0x${zk.getSessionId().toString(16)}` });
  world.label("elected");
}

export const trustingLeader = defineUserScript({
  module: import.meta.url,
  export: "trustingLeader",
  checkers: [oneLeaderActs],
  labels: ["elected", "acted-disconnected"],
  async run(world) {
    const setup = await Connection.open(world.client("c1"));
    await setup.retrying((zk) => zk.create("/election", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT).catch((err) => (isCode(err, Code.NODEEXISTS) ? "" : Promise.reject(err))));
    await Promise.all(
      world.clients.map(async (id) => {
        const node = world.client(id);
        while (node.nowMs() < RUN_UNTIL_MS) {
          const zk = await node.connect({ sessionTimeoutMs: 4000 });
          try {
            await campaign(world, id, zk, node);
            for (let step = 0; step < 12; step++) {
              if (zk.getState() !== "CONNECTED") world.label("acted-disconnected"); // the bug: no check, keep acting
              node.record("act", { step });
              await node.sleepMs(500);
            }
            node.record("resigned");
          } catch (err) {
            if (!isCode(err, Code.SESSIONEXPIRED) && !isCode(err, Code.CONNECTIONLOSS)) throw err;
          } finally {
            await zk.close();
          }
          await node.sleepMs(100);
        }
      }),
    );
    await setup.close();
  },
});

// ---- 3. CONNECTIONLOSS on a create treated as failure ----

export const retryingQueue = defineUserScript({
  module: import.meta.url,
  export: "retryingQueue",
  labels: ["create-lost", "enqueued"],
  async run(world) {
    const producer = world.client("c1");
    const conn = await Connection.open(producer);
    await conn.retrying((zk) => zk.create("/queue", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT).catch((err) => (isCode(err, Code.NODEEXISTS) ? "" : Promise.reject(err))));
    for (let job = 1; producer.nowMs() < RUN_UNTIL_MS; job++) {
      for (;;) {
        try {
          await conn.once((zk) => zk.create("/queue/job-", `job ${job}`, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
          world.label("enqueued");
          break;
        } catch (err) {
          if (!isCode(err, Code.CONNECTIONLOSS) && !isCode(err, Code.SESSIONEXPIRED)) throw err;
          world.label("create-lost"); // the bug: "it failed", so enqueue it again
          await producer.sleepMs(100);
        }
      }
      await producer.sleepMs(100);
    }
    const names = await conn.retrying((zk) => zk.getChildren("/queue"));
    const jobs = await Promise.all(names.map(async (n) => new TextDecoder().decode((await conn.retrying((zk) => zk.getData(`/queue/${n}`))).data ?? new Uint8Array())));
    const twice = jobs.filter((j, i) => jobs.indexOf(j) !== i);
    world.expect(twice.length === 0, `jobs queued more than once: ${[...new Set(twice)].join(", ")}`);
    await conn.close();
  },
});
