import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DocumentStore, StoredDoc } from '../src';

interface Contact extends StoredDoc {
  tenant: string;
  name: string;
  email: string | null;
  tags?: { code: string };
}

const FIELDS = ['name', 'email', 'tags.code'];

/** Full-text search behaviour both adapters share (part of the store contract). */
export function searchContract(storeOf: () => DocumentStore): void {
  describe('text search', () => {
    let seq = 0;
    async function contacts() {
      const name = `contacts_${++seq}`;
      const store = storeOf();
      await store.ensureCollection({
        name,
        indexes: [{ name: 'tenant', fields: ['tenant'] }],
        textIndex: { name: 'contacts_text', fields: FIELDS },
      });
      const col = store.collection<Contact>(name);
      const rows: Omit<Contact, 'id' | 'version'>[] = [
        { tenant: 'a', name: 'Muster GmbH', email: 'billing@muster.example' },
        { tenant: 'a', name: 'Beispiel AG', email: 'rechnung@beispiel.example' },
        { tenant: 'a', name: 'Muster und Beispiel OHG', email: null },
        { tenant: 'a', name: 'Acme Ltd', email: 'ap@acme.example', tags: { code: 'k7f3a9' } },
        { tenant: 'b', name: 'Muster Filiale', email: 'muster@other.example' },
      ];
      for (const row of rows) await col.insert(row);
      return col;
    }
    const names = (items: Contact[]) => items.map((c) => c.name);

    it('matches whole words of any indexed field, case-insensitively, within the filter', async () => {
      const col = await contacts();
      const page = await col.search({ tenant: 'a' }, { text: 'MUSTER', fields: FIELDS }, { page: 1, limit: 10 });
      expect(names(page.items).sort()).toEqual(['Muster GmbH', 'Muster und Beispiel OHG']);
      expect(page.total).toBe(2);
      expect(names((await col.search({ tenant: 'a' }, { text: 'rechnung', fields: FIELDS })).items)).toEqual([
        'Beispiel AG',
      ]);
      expect(names((await col.search({ tenant: 'a' }, { text: 'k7f3a9', fields: FIELDS })).items)).toEqual([
        'Acme Ltd',
      ]);
      expect((await col.search({ tenant: 'a' }, { text: 'must', fields: FIELDS })).total).toBe(0);
    });

    it('ranks documents matching more of the words first and pages with a total', async () => {
      const col = await contacts();
      const first = await col.search(
        { tenant: 'a' },
        { text: 'muster beispiel', fields: FIELDS },
        { page: 1, limit: 1 },
      );
      expect(names(first.items)).toEqual(['Muster und Beispiel OHG']);
      expect(first.total).toBe(3);
      const second = await col.search(
        { tenant: 'a' },
        { text: 'muster beispiel', fields: FIELDS },
        { page: 2, limit: 1 },
      );
      const third = await col.search(
        { tenant: 'a' },
        { text: 'muster beispiel', fields: FIELDS },
        { page: 3, limit: 1 },
      );
      expect([...names(second.items), ...names(third.items)].sort()).toEqual(['Beispiel AG', 'Muster GmbH']);
      expect([second.total, third.total]).toEqual([3, 3]);
      const past = await col.search(
        { tenant: 'a' },
        { text: 'muster beispiel', fields: FIELDS },
        { page: 9, limit: 2 },
      );
      expect(past).toMatchObject({ items: [], total: 3, page: 9, limit: 2 });
    });

    it('treats query syntax as plain words and matches nothing without words', async () => {
      const col = await contacts();
      expect(
        names((await col.search({ tenant: 'a' }, { text: '-muster "acme" & | !', fields: FIELDS })).items).sort(),
      ).toEqual(['Acme Ltd', 'Muster GmbH', 'Muster und Beispiel OHG']);
      expect(
        await col.search({ tenant: 'a' }, { text: ' .,;- ', fields: FIELDS }, { page: 1, limit: 5 }),
      ).toMatchObject({ items: [], total: 0 });
    });

    it('finds a client by the keyed digest of its tax ID in a nested field, beside words of the query (client search)', async () => {
      // As billing stores taxInfo.taxIdDigest (`<kid>x<64 hex>`) and searches with the digests under
      // every key of the ring, then the words the user typed.
      const col = await contacts();
      const digest = (kid: string, taxId: string) => `${kid}x${createHmac('sha256', kid).update(taxId).digest('hex')}`;
      const store = storeOf();
      const stored = await store
        .collection<Contact>(col.name)
        .insert({ tenant: 'a', name: 'Steuer KG', email: null, tags: { code: digest('k2026', 'DE136695976') } });
      const query = `${digest('k2025', 'DE136695976')} ${digest('k2026', 'DE136695976')} DE136695976`;
      const found = await col.search({ tenant: 'a' }, { text: query, fields: FIELDS }, { page: 1, limit: 5 });
      expect(found.items.map((c) => c.id)).toEqual([stored.id]);
      expect(found.total).toBe(1);
      // Another tax ID's digest finds nothing, and neither does the tenant beside.
      expect(
        (await col.search({ tenant: 'a' }, { text: digest('k2026', 'DE136695977'), fields: FIELDS })).items,
      ).toEqual([]);
      expect((await col.search({ tenant: 'b' }, { text: query, fields: FIELDS })).items).toEqual([]);
    });
  });
}
