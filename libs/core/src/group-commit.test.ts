import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit';

/** A write that stays under way until released, recording each group it got. */
function gatedWriter(fail?: (items: number[]) => boolean) {
  const groups: number[][] = [];
  const gates: (() => void)[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      groups.push(items);
      gates.push(() => (fail?.(items) ? reject(new Error(`write of ${items.join(',')} failed`)) : resolve()));
    });
  const releaseNext = async () => {
    // Let the drain loop reach its next write before releasing it.
    for (let i = 0; i < 5 && gates.length === 0; i++) await Promise.resolve();
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { groups, write, releaseNext };
}

describe('GroupCommit', () => {
  it('writes the items of one tick together, and those handed in during a write in the next one', async () => {
    const w = gatedWriter();
    const gc = new GroupCommit<number>(w.write);
    const first = [gc.add(1), gc.add(2), gc.add(3)];
    await new Promise((r) => setImmediate(r));
    expect(w.groups).toEqual([[1, 2, 3]]);
    const second = [gc.add(4), gc.add(5)];
    await w.releaseNext();
    await Promise.all(first);
    expect(w.groups).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    await w.releaseNext();
    await Promise.all(second);
    // Idle again: a lone item is written by itself.
    const third = gc.add(6);
    await w.releaseNext();
    await third;
    expect(w.groups).toEqual([[1, 2, 3], [4, 5], [6]]);
  });

  it('fails only the callers whose group failed', async () => {
    const w = gatedWriter((items) => items.includes(2));
    const gc = new GroupCommit<number>(w.write);
    const a = gc.add(1);
    const b = gc.add(2);
    await new Promise((r) => setImmediate(r));
    const c = gc.add(3);
    const outcomes = Promise.allSettled([a, b, c]);
    await w.releaseNext();
    await w.releaseNext();
    const [ra, rb, rc] = await outcomes;
    expect(ra).toMatchObject({ status: 'rejected', reason: { message: 'write of 1,2 failed' } });
    expect(rb).toMatchObject({ status: 'rejected', reason: { message: 'write of 1,2 failed' } });
    expect(rc).toEqual({ status: 'fulfilled', value: undefined });
    expect(w.groups).toEqual([[1, 2], [3]]);
  });

  it('caps a group at maxItems', async () => {
    const w = gatedWriter();
    const gc = new GroupCommit<number>(w.write, 2);
    const all = [1, 2, 3, 4, 5].map((n) => gc.add(n));
    await w.releaseNext();
    await w.releaseNext();
    await w.releaseNext();
    await Promise.all(all);
    expect(w.groups).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => new GroupCommit<number>(w.write, 0)).toThrow(RangeError);
  });
});
