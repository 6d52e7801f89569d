/**
 * `LearnerHandler`: the leader's side of one learner connection, through discovery
 * (FOLLOWERINFO, LEADERINFO, ACKEPOCH), synchronisation and broadcast (docs/zookeeper.md
 * §7.3–7.6). `synced` while a packet arrived from the learner within syncLimit ticks.
 */
import type { Endpoint } from "../../../world/index.js";
import type { Zxid } from "../../proto/records.js";
import type { Leader } from "./leader.js";
import type { QuorumPacket } from "./quorum-packet.js";

type HandlerStage = "FOLLOWERINFO" | "EPOCH" | "ACKEPOCH" | "SYNC" | "NEWLEADER" | "BROADCAST";

export class LearnerHandler {
  sid = -1;
  isObserver = false;
  stage: HandlerStage = "FOLLOWERINFO";
  learnerAcceptedEpoch = -1;
  peerLastZxid: Zxid = 0n;
  /** Live PROPOSAL/COMMIT traffic goes to this learner (from startForwarding on). */
  forwarding = false;
  tickOfNextAckDeadline: number;

  constructor(
    readonly leader: Leader,
    readonly ep: Endpoint,
  ) {
    this.tickOfNextAckDeadline = leader.tick + leader.peer.config.initLimitTicks + leader.peer.config.syncLimitTicks;
  }

  send(p: QuorumPacket): void {
    this.ep.send(p);
  }

  get synced(): boolean {
    return this.ep.open && this.stage !== "FOLLOWERINFO" && this.leader.tick <= this.tickOfNextAckDeadline;
  }
}
