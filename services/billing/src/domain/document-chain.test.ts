import { describe, expect, it } from 'vitest';
import {
  contentDigest,
  entryDigest,
  GENESIS_DIGEST,
  verifyChains,
  type ChainEntry,
  type ChainEntryBody,
  type ChainSeries,
} from './document-chain';

/** A chain of `n` invoice entries over documents d1..dn whose content is `{ n: k }`. */
function chain(n: number): { entries: ChainEntry[]; docs: Map<string, unknown> } {
  const entries: ChainEntry[] = [];
  const docs = new Map<string, unknown>();
  let prev = GENESIS_DIGEST;
  for (let k = 1; k <= n; k++) {
    const content = { number: `INV-${k}`, snapshot: { total: k * 100 } };
    docs.set(`invoice:d${k}`, content);
    const body: ChainEntryBody = {
      organizationId: 'o',
      mode: 'live',
      series: 'invoice',
      seq: k,
      type: 'invoice',
      documentId: `d${k}`,
      number: `INV-${k}`,
      contentDigest: contentDigest(content),
      format: null,
      at: `2026-11-27T10:00:0${k}.000Z`,
      prevDigest: prev,
    };
    const entry = { ...body, digest: entryDigest(body) };
    entries.push(entry);
    prev = entry.digest;
  }
  return { entries, docs };
}

const lookup = (docs: Map<string, unknown>) => (series: ChainSeries, id: string) => docs.get(`${series}:${id}`) ?? null;

describe('document hash chain', () => {
  it('passes an intact chain whatever the key order of the stored content', () => {
    const { entries, docs } = chain(3);
    docs.set('invoice:d2', { snapshot: { total: 200 }, number: 'INV-2' });
    expect(verifyChains(entries, lookup(docs))).toEqual({
      ok: true,
      entries: 3,
      documents: 3,
      files: 0,
      firstBroken: null,
    });
  });

  it('names the document whose stored snapshot changed', () => {
    const { entries, docs } = chain(3);
    docs.set('invoice:d2', { number: 'INV-2', snapshot: { total: 1 } });
    expect(verifyChains(entries, lookup(docs)).firstBroken).toMatchObject({
      seq: 2,
      documentId: 'd2',
      number: 'INV-2',
      reason: 'document_altered',
    });
  });

  it('names an altered, removed or re-linked entry', () => {
    const altered = chain(3);
    altered.entries[1] = { ...altered.entries[1]!, contentDigest: contentDigest({ other: true }) };
    expect(verifyChains(altered.entries, lookup(altered.docs)).firstBroken).toMatchObject({
      seq: 2,
      reason: 'entry_altered',
    });

    const removed = chain(3);
    removed.entries.splice(1, 1);
    expect(verifyChains(removed.entries, lookup(removed.docs)).firstBroken).toMatchObject({
      seq: 3,
      reason: 'entry_missing',
    });

    // Entry 3 rewritten consistently but pointing past entry 2: its own digest holds, the link does not.
    const relinked = chain(3);
    const body = { ...relinked.entries[2]!, prevDigest: GENESIS_DIGEST };
    relinked.entries[2] = { ...body, digest: entryDigest(body) };
    expect(verifyChains(relinked.entries, lookup(relinked.docs)).firstBroken).toMatchObject({
      seq: 3,
      reason: 'previous_digest_mismatch',
    });
  });

  it('names a document that is gone', () => {
    const { entries, docs } = chain(2);
    docs.delete('invoice:d1');
    expect(verifyChains(entries, lookup(docs)).firstBroken).toMatchObject({
      documentId: 'd1',
      reason: 'document_missing',
    });
  });
});
