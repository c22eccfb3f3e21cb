import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUnguessableObjectId, ValidationError } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import { storedPdf, type DocumentDoc } from '../src/app/stored-pdf';
import { collections, DOCUMENTS } from '../src/store/collections';
import { invoice, testRenderer } from './fixtures';

const PG_URL = TEST_PG_URL;
const renderer = testRenderer({ pages: 1, maxQueue: 4 });
let store: DroppableStore;

beforeAll(async () => {
  store = await createStore({ url: PG_URL, database: `documents_test_${randomBytes(5).toString('hex')}` });
  for (const c of collections) await store.ensureCollection(c);
});
afterAll(async () => {
  await renderer.close();
  await store.dropDatabase();
  await store.close();
});

describe('stored PDFs', () => {
  const organizationId = newUnguessableObjectId();
  const documentId = newUnguessableObjectId();
  const base = { organizationId, mode: 'live' as const, documentId, regenerate: false };

  it('renders once per snapshot version, serves the stored bytes afterwards, and renders again when asked', async () => {
    const first = await storedPdf(store, renderer, { ...base, snapshotVersion: 'c0', view: invoice() });
    expect(first.rendered).toBe(true);
    expect(first.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // What is printed comes from the stored snapshot's PDF, not the view sent this time.
    const again = await storedPdf(store, renderer, {
      ...base,
      snapshotVersion: 'c0',
      view: invoice({ number: 'CHANGED' }),
    });
    expect(again.rendered).toBe(false);
    expect(again.pdf.equals(first.pdf)).toBe(true);

    const next = await storedPdf(store, renderer, { ...base, snapshotVersion: 'c1', view: invoice() });
    expect(next.rendered).toBe(true);

    const regenerated = await storedPdf(store, renderer, {
      ...base,
      snapshotVersion: 'c0',
      regenerate: true,
      view: invoice(),
    });
    expect(regenerated.rendered).toBe(true);

    const records = await store.collection<DocumentDoc>(DOCUMENTS).find({ organizationId, documentId });
    expect(records.items.map((r) => r.snapshotVersion).sort()).toEqual(['c0', 'c1']);
    const record = records.items.find((r) => r.snapshotVersion === 'c0')!;
    expect(record.size).toBe(regenerated.pdf.length);
    expect(JSON.stringify(record)).not.toMatch(/JVBERi0/); // no base64 PDF inside the JSON
    expect((await store.blobs.get(record.blobKey))?.bytes.equals(regenerated.pdf)).toBe(true);
  });

  it('keeps test and live documents apart', async () => {
    const test = await storedPdf(store, renderer, { ...base, mode: 'test', snapshotVersion: 'c0', view: invoice() });
    expect(test.rendered).toBe(true);
  });

  it('renders an ephemeral preview every time and stores nothing', async () => {
    const previewOf = newUnguessableObjectId();
    const req = { ...base, documentId: previewOf, snapshotVersion: 'preview', ephemeral: true };
    const first = await storedPdf(store, renderer, {
      ...req,
      view: invoice({ kind: 'proforma', number: 'PROFORMA-ABCD1234-4' }),
    });
    expect(first.rendered).toBe(true);
    expect(first.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const second = await storedPdf(store, renderer, {
      ...req,
      view: invoice({ kind: 'proforma', number: 'PROFORMA-ABCD1234-4' }),
    });
    expect(second.rendered).toBe(true);
    expect((await store.collection<DocumentDoc>(DOCUMENTS).find({ documentId: previewOf })).items).toEqual([]);
  });

  it('refuses malformed keys without rendering', async () => {
    await expect(
      storedPdf(store, renderer, { ...base, snapshotVersion: '../x', view: invoice() }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      storedPdf(store, renderer, { ...base, documentId: 'nope', snapshotVersion: 'c0', view: invoice() }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
