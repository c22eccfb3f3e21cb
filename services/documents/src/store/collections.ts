import type { CollectionSpec } from '@paymesh/store';

export const DOCUMENTS = 'documents';

export const collections: CollectionSpec[] = [
  {
    name: DOCUMENTS,
    indexes: [
      {
        name: 'documents_key',
        fields: ['organizationId', 'mode', 'kind', 'documentId', 'snapshotVersion'],
        unique: true,
      },
    ],
  },
];
