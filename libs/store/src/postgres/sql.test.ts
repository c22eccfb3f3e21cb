import { describe, expect, it } from 'vitest';
import { prepared } from './sql';

describe('prepared statements', () => {
  it('names a statement by its text, so one name never stands for two statements', () => {
    const a = prepared('SELECT id FROM "s"."t" WHERE id = $1', ['x']);
    const again = prepared('SELECT id FROM "s"."t" WHERE id = $1', ['y']);
    const other = prepared('SELECT id FROM "s2"."t" WHERE id = $1', ['x']);
    expect(a.name).toMatch(/^pm_[0-9a-f]{20}$/);
    expect(again.name).toBe(a.name);
    expect(again.values).toEqual(['y']);
    expect(other.name).not.toBe(a.name);
  });
});
