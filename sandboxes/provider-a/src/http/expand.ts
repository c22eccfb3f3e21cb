import type { Account } from '../domain/account';
import { invalidParam } from '../errors';
import { isRecord } from './params';

function lookup(account: Account, id: string): unknown {
  const prefix = id.slice(0, id.indexOf('_'));
  switch (prefix) {
    case 'pi':
      return account.paymentIntents.get(id)?.intent;
    case 'ch':
      return account.charges.get(id);
    case 're':
      return account.refunds.get(id);
    case 'dp':
      return account.disputes.get(id);
    case 'pm':
      return account.paymentMethods.get(id)?.method;
    default:
      return undefined;
  }
}

function expandPath(account: Account, obj: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  if (!head) return;
  if (head === 'data' && Array.isArray(obj.data)) {
    for (const item of obj.data) if (isRecord(item)) expandPath(account, item, rest);
    return;
  }
  if (!Object.hasOwn(obj, head)) throw invalidParam(`This property cannot be expanded (${head}).`, 'expand');
  let value = obj[head];
  if (typeof value === 'string') {
    const found = lookup(account, value);
    if (found === undefined) throw invalidParam(`This property cannot be expanded (${head}).`, 'expand');
    value = structuredClone(found);
    obj[head] = value;
  }
  if (value === null) return;
  if (!isRecord(value)) throw invalidParam(`This property cannot be expanded (${head}).`, 'expand');
  expandPath(account, value, rest);
}

/** Replaces id references named by `expand[]` paths (dot separated, `data.` for lists) with the objects. */
export function expand<T extends object>(account: Account, obj: T, paths: readonly string[]): T {
  if (paths.length === 0) return obj;
  const copy = structuredClone(obj);
  for (const p of paths) expandPath(account, copy as Record<string, unknown>, p.split('.'));
  return copy;
}
