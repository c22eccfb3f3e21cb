import { describe, expect, it } from 'vitest';
import { newUnguessableObjectId } from './ids';
import { isObjectId } from './tenancy';

describe('unguessable object IDs', () => {
  it('keep the ObjectId layout and creation time but share nothing else', () => {
    const at = new Date('2026-11-22T01:00:00.000Z');
    const a = newUnguessableObjectId(at);
    const b = newUnguessableObjectId(at);
    expect(isObjectId(a)).toBe(true);
    expect(parseInt(a.slice(0, 8), 16)).toBe(Math.floor(at.getTime() / 1000));
    expect(a.slice(0, 8)).toBe(b.slice(0, 8));
    expect(a.slice(8)).not.toBe(b.slice(8));
    // Consecutive IDs are not neighbours (a plain ObjectId's tail is a counter).
    expect(Math.abs(parseInt(a.slice(-6), 16) - parseInt(b.slice(-6), 16))).not.toBe(1);
  });
});
