import { describe, expect, it } from 'vitest';
import type { DueClaim } from '../../src/posts/post-transitions.ts';
import { DuePump } from '../../src/publishing/due-pump.ts';

// The pump on its own: claims and publishes are stand-ins that the test controls.

/** A stand-in claim: only its post id is read by these tests. */
const dueClaim = (postId: string) => ({ claim: { postId } }) as unknown as DueClaim;

/** `count` posts due, claimed in order; each publish waits until the test releases it. */
function fakeLane(count: number) {
  const due = Array.from({ length: count }, (_, i) => `p${i}`);
  const claims: number[] = [];
  const published: string[] = [];
  const pending = new Map<string, () => void>();
  let inFlight = 0;
  let most = 0;
  const errors: unknown[] = [];
  const work = {
    claim: async (limit: number) => {
      claims.push(limit);
      return due.splice(0, limit).map(dueClaim);
    },
    publish: (claim: DueClaim) =>
      new Promise<void>((resolve) => {
        inFlight++;
        most = Math.max(most, inFlight);
        pending.set(claim.claim.postId, () => {
          inFlight--;
          published.push(claim.claim.postId);
          resolve();
        });
      }),
    report: (error: unknown) => void errors.push(error),
  };
  const releaseAll = () => {
    for (const [id, release] of [...pending]) {
      pending.delete(id);
      release();
    }
  };
  return { due, claims, published, pending, work, errors, releaseAll, most: () => most };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the due pump of a lane', () => {
  it('claims as many as it has room for, never publishes more than `concurrency` at once, and ends when a claim comes back short', async () => {
    const lane = fakeLane(10);
    const pump = new DuePump(lane.work, 4);
    let shared = 0;
    const drained = pump.drain(() => shared++);
    // Full after the first claim: it waits for room (and asks another worker to share).
    await turn();
    expect(lane.claims).toEqual([4]);
    expect(shared).toBe(1);
    expect(pump.inFlight).toBe(4);
    while (lane.due.length > 0 || lane.pending.size > 0) {
      lane.releaseAll();
      await turn();
      await turn();
    }
    await drained;
    expect(lane.most()).toBe(4);
    expect(lane.published.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
    // Room for 4, 4, then 2 left: the third claim asked for 4 and got 2, so it was the last.
    expect(lane.claims).toEqual([4, 4, 4]);
    expect(lane.errors).toEqual([]);
    expect(await pump.idle()).toBe(true);
  });

  it('drain resolves once everything due is claimed; idle waits for the publishes', async () => {
    const lane = fakeLane(2);
    const pump = new DuePump(lane.work, 8);
    await pump.drain(() => {});
    expect(lane.claims).toEqual([8]);
    expect(pump.inFlight).toBe(2);
    let idle = false;
    const waiting = pump.idle().then((quiet) => {
      idle = true;
      return quiet;
    });
    await turn();
    expect(idle).toBe(false);
    lane.releaseAll();
    expect(await waiting).toBe(false);
    expect(lane.published.sort()).toEqual(['p0', 'p1']);
  });

  it('a drain asked for while a claim is under way gets a claim of its own after it, shared with every drain asked for meanwhile', async () => {
    const lane = fakeLane(1);
    let releaseClaim!: () => void;
    const gate = new Promise<void>((resolve) => (releaseClaim = resolve));
    const claim = lane.work.claim;
    let first = true;
    lane.work.claim = async (limit: number) => {
      if (first) {
        first = false;
        const got = await claim(limit);
        await gate;
        return got;
      }
      return claim(limit);
    };
    const pump = new DuePump(lane.work, 8);
    const one = pump.drain(() => {});
    await turn();
    // Committed after the first claim read the posts: only a later claim can see it.
    lane.due.push('late');
    const two = pump.drain(() => {});
    const three = pump.drain(() => {});
    releaseClaim();
    await Promise.all([one, two, three]);
    // The second claim has room for 7: the first post is still being published.
    expect(lane.claims).toEqual([8, 7]);
    lane.releaseAll();
    await pump.idle();
    expect(lane.published.sort()).toEqual(['late', 'p0']);
  });

  it('a claim that fails is reported, and the next drain claims again', async () => {
    const lane = fakeLane(3);
    const claim = lane.work.claim;
    let fail = true;
    lane.work.claim = async (limit: number) => {
      if (fail) {
        fail = false;
        throw new Error('database away');
      }
      return claim(limit);
    };
    const pump = new DuePump(lane.work, 8);
    await pump.drain(() => {});
    expect(lane.errors.map((e) => (e as Error).message)).toEqual(['database away']);
    await pump.drain(() => {});
    lane.releaseAll();
    await pump.idle();
    expect(lane.published.sort()).toEqual(['p0', 'p1', 'p2']);
  });

  it('with less than half its slots free it waits briefly for more, then claims what room there is', async () => {
    const lane = fakeLane(20);
    const pump = new DuePump(lane.work, 4);
    const drained = pump.drain(() => {});
    await turn();
    expect(lane.claims).toEqual([4]);
    // One slot frees up: the pump does not claim one post at once...
    lane.pending.get('p0')!();
    lane.pending.delete('p0');
    await turn();
    expect(lane.claims).toEqual([4]);
    // ...a second one gives it half its slots: it claims two.
    lane.pending.get('p1')!();
    lane.pending.delete('p1');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await turn();
    expect(lane.claims).toEqual([4, 2]);
    // One more frees: after a short wait it claims that one (a slow publish never holds up the others).
    lane.pending.get('p2')!();
    lane.pending.delete('p2');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lane.claims).toEqual([4, 2, 1]);
    while (lane.due.length > 0 || lane.pending.size > 0) {
      lane.releaseAll();
      await new Promise((resolve) => setTimeout(resolve, 0));
      await turn();
    }
    await drained;
    expect(lane.published).toHaveLength(20);
    expect(lane.most()).toBe(4);
  });
});
