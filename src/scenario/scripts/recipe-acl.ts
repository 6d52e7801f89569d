/**
 * recipe-acl: recipes on znodes whose ACL refuses the client a write. An administrator (c1,
 * digest-authenticated, keeping every permission for itself) creates the queue's directory readable and open to creates but not to deletes, and the
 * group's directory readable only. A producer still offers (CREATE is granted); a consumer's
 * take reads the item and then meets NOAUTH on its delete; a member's join meets NOAUTH on its
 * create. NOAUTH is no connection trouble that a retry outlives: the recipe must hand it to its
 * caller (as Curator's recipes throw `NoAuthException`), not retry it for ever. The item stays in
 * the queue, the group stays empty, and both recipes work again once the administrator opens the
 * ACLs.
 */
import { DistributedQueue } from "../../recipes/queue.js";
import { GroupMember, GroupWatcher } from "../../recipes/group-membership.js";
import { CreateMode, Ids, Perms, type ACL } from "../../zk/proto/records.js";
import type { RecipeHost } from "../../recipes/recipe-support.js";
import type { ScriptDef } from "./script.js";
import { RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, recipeHostOf, settle } from "./recipe-support.js";

const QUEUE = "/app/acl-jobs";
const GROUP = "/app/acl-members";
/** Long enough for a few hundred retries: a recipe that hands NOAUTH back does so in a round trip or two. */
const ANSWER_WITHIN_MS = 3000;

/** `perms` for everyone, and everything for the administrator's own identity (it changes the ACL later). */
const worldAnd = (perms: number): ACL[] => [{ perms, id: Ids.ANYONE_ID_UNSAFE }, { perms: Perms.ALL, id: Ids.AUTH_IDS }];

/** What `op` ended with within `ms` of `host`'s time: "ok", an error's code name, or "no answer". */
async function within(host: RecipeHost, ms: number, op: Promise<unknown>): Promise<string> {
  const ended = op.then(
    () => "ok",
    (e: { codeName?: string; message?: string }) => e.codeName ?? e.message ?? "error",
  );
  return Promise.race([ended, host.sleepMs(ms).then(() => "no answer")]);
}

export const recipeAcl: ScriptDef = {
  name: "recipe-acl",
  description: "a queue whose ACL refuses deletes and a group whose ACL refuses creates: the take and the join hand NOAUTH to their caller instead of retrying it, and work once the ACLs open",
  recipeCheckers: ["recipe.queue", "recipe.group"],
  clientRange: [3, 3],
  noGenerate: "its expectations are the errors of the ACLs the story sets",
  clientCrashes: false,
  async run(s) {
    await settle(s);
    const admin = await connectClient(s, "c1", RECIPE_SESSION_TIMEOUT_MS);
    admin.addAuthInfo("digest", "admin:secret");
    await admin.create("/app", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    await admin.create(QUEUE, "", worldAnd(Perms.READ | Perms.CREATE), CreateMode.PERSISTENT);
    await admin.create(GROUP, "", worldAnd(Perms.READ), CreateMode.PERSISTENT);
    s.note(`c1 made ${QUEUE} readable and open to creates, not to deletes, and ${GROUP} readable only`);

    const producerZk = await connectClient(s, "c2", RECIPE_SESSION_TIMEOUT_MS);
    const producerHost = recipeHostOf(s, hostOf(s, "c2"));
    const producer = new DistributedQueue(producerZk, producerHost, QUEUE);
    await producer.init();
    await producer.offer("job1", "payload 1");

    const consumerZk = await connectClient(s, "c3", RECIPE_SESSION_TIMEOUT_MS);
    const consumerHost = recipeHostOf(s, hostOf(s, "c3"));
    const consumer = new DistributedQueue(consumerZk, consumerHost, QUEUE);
    s.expectEqual(await within(consumerHost, ANSWER_WITHIN_MS, consumer.take()), "NOAUTH", "a take whose delete the queue's ACL refuses hands NOAUTH to its caller");
    s.expectEqual((await admin.getChildren(QUEUE)).length, 1, "the refused take left the item in the queue");

    const member = new GroupMember(producerZk, producerHost, GROUP, "c2");
    s.expectEqual(await within(producerHost, ANSWER_WITHIN_MS, member.join()), "NOAUTH", "a join whose create the group's ACL refuses hands NOAUTH to its caller");
    s.expectEqual(await admin.getChildren(GROUP), [], "the refused join left the group empty");

    await admin.setACL(QUEUE, Ids.OPEN_ACL_UNSAFE, -1);
    await admin.setACL(GROUP, Ids.OPEN_ACL_UNSAFE, -1);
    s.note("c1 opened both ACLs");
    const again = new DistributedQueue(consumerZk, consumerHost, QUEUE);
    s.expectEqual(await within(consumerHost, ANSWER_WITHIN_MS, again.take().then((item) => s.expectEqual(item.id, "job1", "the item taken is the one offered"))), "ok", "with deletes allowed the take succeeds");
    const rejoin = new GroupMember(producerZk, producerHost, GROUP, "c2");
    s.expectEqual(await within(producerHost, ANSWER_WITHIN_MS, rejoin.join()), "ok", "with creates allowed the join succeeds");
    s.expectEqual(await new GroupWatcher(admin, recipeHostOf(s, hostOf(s, "c1")), GROUP).refresh(), ["c2"], "the group lists the member");
    await rejoin.leave();
    for (const zk of [admin, producerZk, consumerZk]) await zk.close();
    s.conclude("the refused take and join reported NOAUTH at once; both worked once the ACLs allowed them");
  },
};
