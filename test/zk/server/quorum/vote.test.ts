import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeZxid } from "../../../../src/zk/proto/records.js";
import { QuorumVerifier } from "../../../../src/zk/server/quorum/quorum-verifier.js";
import { LONG_MIN_VALUE, LONG_MIN_VALUE_ZXID, makeVote, totalOrderPredicate, voteEquals, voteToString } from "../../../../src/zk/server/quorum/vote.js";

const config = (voters: number, observers = 0) =>
  new QuorumVerifier([
    ...Array.from({ length: voters }, (_, i) => ({ sid: i + 1, host: `s${i + 1}`, role: "participant" as const })),
    ...Array.from({ length: observers }, (_, i) => ({ sid: voters + i + 1, host: `s${voters + i + 1}`, role: "observer" as const })),
  ]);

describe("ensemble: quorum verifier", () => {
  it("ensemble: quorum verifier: a majority of voters, observers not counted (N=5+2)", () => {
    const qv = config(5, 2);
    expect(qv.half).toBe(2);
    expect(qv.containsQuorum(new Set([1, 2]))).toBe(false);
    expect(qv.containsQuorum(new Set([1, 2, 6, 7]))).toBe(false);
    expect(qv.containsQuorum(new Set([1, 2, 5]))).toBe(true);
    expect([...qv.votingMembers.keys()]).toEqual([1, 2, 3, 4, 5]);
    expect([...qv.observingMembers.keys()]).toEqual([6, 7]);
    expect(qv.getWeight(3)).toBe(1);
    expect(qv.getWeight(6)).toBe(0);
    expect(qv.sidOfHost("s7")).toBe(7);
  });

  it("ensemble: quorum verifier: any two quorums intersect (N=1..9)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }), fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }), (n, a, b) => {
        const qv = config(n);
        const sa = new Set([...Array(n).keys()].filter((i) => a[i]).map((i) => i + 1));
        const sb = new Set([...Array(n).keys()].filter((i) => b[i]).map((i) => i + 1));
        if (qv.containsQuorum(sa) && qv.containsQuorum(sb)) expect([...sa].some((s) => sb.has(s))).toBe(true);
      }),
    );
  });

  it("ensemble: quorum verifier: rejects duplicate sids and voter-less configs", () => {
    expect(() => new QuorumVerifier([{ sid: 1, host: "a", role: "participant" }, { sid: 1, host: "b", role: "participant" }])).toThrow(/duplicate sid 1/);
    expect(() => new QuorumVerifier([{ sid: 1, host: "a", role: "observer" }])).toThrow(/no participant/);
    expect(config(2, 1).toString()).toBe("server.1=s1:2888:3888:participant\nserver.2=s2:2888:3888:participant\nserver.3=s3:2888:3888:observer\nversion=0");
  });
});

describe("ensemble: vote", () => {
  it("ensemble: vote: epoch, then zxid, then sid", () => {
    const z = (e: number, c: number) => makeZxid(e, c);
    expect(totalOrderPredicate(1, z(1, 1), 2, 9, z(1, 99), 1)).toBe(true); // higher epoch wins
    expect(totalOrderPredicate(1, z(1, 5), 1, 9, z(1, 4), 1)).toBe(true); // then higher zxid
    expect(totalOrderPredicate(9, z(1, 5), 1, 1, z(1, 5), 1)).toBe(true); // then higher sid
    expect(totalOrderPredicate(1, z(1, 5), 1, 9, z(1, 5), 1)).toBe(false);
    expect(totalOrderPredicate(3, z(1, 5), 1, 3, z(1, 5), 1)).toBe(false); // not strictly better
    // ZOOKEEPER-1419: a higher sid with a lower epoch must not win.
    expect(totalOrderPredicate(9, z(2, 5), 1, 1, z(2, 5), 2)).toBe(false);
    // A weight-0 candidate never wins.
    const qv = config(3, 1);
    expect(totalOrderPredicate(4, z(9, 9), 9, 1, z(1, 1), 1, (s) => qv.getWeight(s))).toBe(false);
    // Any voter beats an observer's Long.MIN_VALUE proposal.
    expect(totalOrderPredicate(1, 0n, 0, LONG_MIN_VALUE, LONG_MIN_VALUE_ZXID, LONG_MIN_VALUE)).toBe(true);
  });

  it("ensemble: vote: the order is a strict total order on distinct sids", () => {
    const cand = fc.record({ sid: fc.integer({ min: 0, max: 20 }), epoch: fc.integer({ min: 0, max: 3 }), counter: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(cand, cand, (a, b) => {
        const za = makeZxid(a.epoch, a.counter);
        const zb = makeZxid(b.epoch, b.counter);
        const ab = totalOrderPredicate(a.sid, za, a.epoch, b.sid, zb, b.epoch);
        const ba = totalOrderPredicate(b.sid, zb, b.epoch, a.sid, za, a.epoch);
        if (a.sid === b.sid && a.epoch === b.epoch && a.counter === b.counter) expect(ab || ba).toBe(false);
        else if (a.sid !== b.sid) expect(ab !== ba).toBe(true);
      }),
    );
  });

  it("ensemble: vote: equality as Vote.equals (LOOKING full, established leader+peerEpoch)", () => {
    const looking = makeVote(3, 0x100000005n, 2n, 1);
    expect(voteEquals(looking, makeVote(3, 0x100000005n, 2n, 1))).toBe(true);
    expect(voteEquals(looking, makeVote(3, 0x100000005n, 3n, 1))).toBe(false);
    expect(voteEquals(looking, makeVote(3, 0x100000005n, 2n, 1, "FOLLOWING", 2))).toBe(true);
    const f = (zxid: bigint, round: bigint, peerEpoch: number, version: number) => makeVote(3, zxid, round, peerEpoch, "FOLLOWING", version);
    // Out of election: zxid and round are ignored (ZOOKEEPER-1805) …
    expect(voteEquals(f(1n, 1n, 1, 2), makeVote(3, 9n, 7n, 1, "LEADING", 2))).toBe(true);
    expect(voteEquals(f(1n, 1n, 1, 2), f(1n, 1n, 2, 2))).toBe(false);
    // … and a version-0 vote against a version-2 one compares only the leader (ZOOKEEPER-1732).
    expect(voteEquals(f(1n, 1n, 1, 0), f(1n, 1n, 2, 2))).toBe(true);
    expect(voteToString(looking)).toBe("(3, 0x100000005, 0x1)");
  });
});
