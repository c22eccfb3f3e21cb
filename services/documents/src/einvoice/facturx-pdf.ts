import { AFRelationship, embedFacturX, PDFDocument } from '@cantoo/pdf-lib';

/**
 * The Factur-X / ZUGFeRD hybrid: the rendered invoice PDF made PDF/A-3B (trailer ID, sRGB output
 * intent, XMP pdfaid) with the CII XML attached as `factur-x.xml` (AFRelationship Alternative,
 * catalog /AF and /EmbeddedFiles, XMP fx: properties and their PDF/A extension schema), profile
 * EN 16931. Chromium embeds every font it uses, as PDF/A requires.
 */
export async function facturXPdf(pdf: Buffer, ciiXml: string, opts: { title: string; at: Date }): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  doc.setTitle(opts.title);
  doc.setProducer('Paymesh documents');
  doc.setCreator('Paymesh');
  doc.setCreationDate(opts.at);
  doc.setModificationDate(opts.at);
  doc.convertToPDFA({ conformance: '3B' });
  await embedFacturX(doc, Buffer.from(ciiXml, 'utf8'), {
    conformanceLevel: 'EN 16931',
    afRelationship: AFRelationship.Alternative,
    description: 'Factur-X / ZUGFeRD invoice (EN 16931)',
    creationDate: opts.at,
    modificationDate: opts.at,
  });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
