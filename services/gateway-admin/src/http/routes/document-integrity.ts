import { documentIntegrityExport, documentIntegrityReport } from '@paymesh/contracts';
import { resource } from '../route-table';
import { toBilling } from './billing-rpc';
import { noParameters } from './common';

/** Tamper evidence of issued documents: scope `document:<action>`, Admin role. */
const documents = resource({ tag: 'Document integrity', scopePrefix: 'document', writeRole: 'Admin' });

export const documentIntegrityRoutes = [
  documents({
    method: 'GET',
    path: '/documents/integrity',
    operationId: 'verifyDocumentIntegrity',
    role: 'Admin',
    response: documentIntegrityReport,
    summary:
      'Verify the hash chains of issued invoices, credit notes, corrections and their files (per number series) against the stored documents; names the first broken link',
    query: noParameters,
    handler: toBilling.bare('verifyDocumentIntegrity'),
  }),
  documents({
    method: 'GET',
    path: '/documents/integrity/export',
    operationId: 'exportDocumentIntegrity',
    action: 'execute',
    role: 'Admin',
    response: documentIntegrityExport,
    summary:
      'Export the hash chains and the stored documents they cover, for the offline verifier (`pnpm verify-integrity <file>`)',
    query: noParameters,
    handler: toBilling.bare('exportDocumentIntegrity'),
  }),
];
