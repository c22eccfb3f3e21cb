import { invalidParam } from '../errors';
import type { Params } from './params';

export interface ListObject<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

export const LIST_PARAMS = ['limit', 'starting_after', 'ending_before'] as const;

/** Cursor pagination over items stored oldest first; pages are returned newest first. */
export function paginate<T extends { id: string }>(oldestFirst: readonly T[], q: Params, url: string): ListObject<T> {
  const limit = q.int('limit', { min: 1, max: 100 }) ?? 10;
  const startingAfter = q.string('starting_after');
  const endingBefore = q.string('ending_before');
  if (startingAfter && endingBefore)
    throw invalidParam('You may only specify one of these parameters: ending_before, starting_after.');
  const newestFirst = [...oldestFirst].reverse();
  const indexOf = (id: string, param: string): number => {
    const i = newestFirst.findIndex((x) => x.id === id);
    if (i < 0) throw invalidParam(`No such object: '${id}'`, param, 'resource_missing');
    return i;
  };
  if (endingBefore) {
    const end = indexOf(endingBefore, 'ending_before');
    const start = Math.max(0, end - limit);
    return { object: 'list', data: newestFirst.slice(start, end), has_more: start > 0, url };
  }
  const start = startingAfter ? indexOf(startingAfter, 'starting_after') + 1 : 0;
  const data = newestFirst.slice(start, start + limit);
  return { object: 'list', data, has_more: start + limit < newestFirst.length, url };
}
