import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '@paymesh/core';
import type { IdempotencyCollection, IdempotencyDoc } from './records';

type DocFields = Omit<IdempotencyDoc, 'id' | 'version'>;

/**
 * In-memory {@link IdempotencyCollection} with the store's semantics that matter here (unique
 * (scope, key), compare-and-set on the version, the store's error codes), each call yielding once
 * so concurrent callers interleave. For in-process tests; gateways use their store's collection.
 */
export class MemoryIdempotencyCollection implements IdempotencyCollection {
  readonly docs = new Map<string, IdempotencyDoc>();

  async insert(doc: DocFields): Promise<IdempotencyDoc> {
    await Promise.resolve();
    if ([...this.docs.values()].some((d) => d.scope === doc.scope && d.key === doc.key)) {
      throw new ConflictError('duplicate key in idempotency_keys', { code: 'DUPLICATE_KEY' });
    }
    const stored = { ...structuredClone(doc), id: randomBytes(12).toString('hex'), version: 1 };
    this.docs.set(stored.id, stored);
    return structuredClone(stored);
  }

  async findOne(filter: { scope: string; key: string }): Promise<IdempotencyDoc | null> {
    await Promise.resolve();
    const d = [...this.docs.values()].find((x) => x.scope === filter.scope && x.key === filter.key);
    return d ? structuredClone(d) : null;
  }

  async find(
    filter: { expiresAt: { $lte: string } },
    options: { limit: number },
  ): Promise<{ items: IdempotencyDoc[] }> {
    await Promise.resolve();
    const items = [...this.docs.values()].filter((d) => d.expiresAt <= filter.expiresAt.$lte).slice(0, options.limit);
    return { items: structuredClone(items) };
  }

  async replace(id: string, expectedVersion: number, next: DocFields): Promise<IdempotencyDoc> {
    await Promise.resolve();
    const current = this.docs.get(id);
    if (!current) throw new NotFoundError(`idempotency_keys/${id} not found`);
    if (current.version !== expectedVersion) throw new ConflictError('version moved', { code: 'VERSION_CONFLICT' });
    const stored = { ...structuredClone(next), id, version: expectedVersion + 1 };
    this.docs.set(id, stored);
    return structuredClone(stored);
  }

  async deleteMany(filter: { id: { $in: string[] }; expiresAt: { $lte: string } }): Promise<number> {
    await Promise.resolve();
    let n = 0;
    for (const id of filter.id.$in) {
      const d = this.docs.get(id);
      if (d && d.expiresAt <= filter.expiresAt.$lte && this.docs.delete(id)) n++;
    }
    return n;
  }
}
