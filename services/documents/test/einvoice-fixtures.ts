import type { EInvoiceDocument, EInvoiceLine } from '@paymesh/contracts';

/** E-invoice documents of the test matrix, as billing builds them from issued invoices. */

const seller: EInvoiceDocument['seller'] = {
  name: 'Muster Software GmbH',
  address: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  email: 'billing@muster.example',
  phone: '+49 30 1234567',
  vatId: 'DE136695976',
  endpoint: { schemeId: '9930', value: 'DE136695976' },
  iban: 'DE89370400440532013000',
};

const line = (
  id: number,
  description: string,
  quantity: number,
  net: number,
  taxRate: number,
  category: EInvoiceLine['category'],
): EInvoiceLine => ({
  id: String(id),
  description,
  quantity,
  net,
  tax: Math.round((net * taxRate) / 100),
  taxRate,
  category,
});

function doc(
  number: string,
  buyer: EInvoiceDocument['buyer'],
  lines: EInvoiceLine[],
  extra: Partial<EInvoiceDocument> = {},
): EInvoiceDocument {
  const net = lines.reduce((s, l) => s + l.net, 0);
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  return {
    kind: 'invoice',
    number,
    issueDate: '2027-03-01',
    dueDate: '2027-03-15',
    servicePeriod: null,
    currency: 'EUR',
    buyerReference: number,
    precedingInvoice: null,
    seller,
    buyer,
    lines,
    totals: { net, tax, gross: net + tax },
    paymentTerms: 'Payable within 14 days, by 2027-03-15.',
    note: null,
    ...extra,
  };
}

const deBuyer: EInvoiceDocument['buyer'] = {
  name: 'Käufer AG',
  address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
  email: 'rechnung@kaeufer.example',
  phone: null,
  vatId: 'DE129273398',
  endpoint: { schemeId: '9930', value: 'DE129273398' },
};

export const domesticDE = doc(
  'INV-2027-0001',
  deBuyer,
  [line(1, 'Consulting, March', 3, 30000, 19, 'S'), line(2, 'Licence', 1, 4999, 19, 'S')],
  {
    servicePeriod: { start: '2027-02-01', end: '2027-02-28' },
  },
);

export const reverseChargeFR = doc(
  'INV-2027-0002',
  {
    name: 'Acheteur SARL',
    address: { street: '12 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' },
    email: 'factures@acheteur.example',
    phone: null,
    vatId: 'FR47759777570',
    endpoint: { schemeId: '0009', value: '75977757000017' },
  },
  [line(1, 'Software development', 10, 100000, 0, 'AE')],
);

export const exportUS = doc(
  'INV-2027-0003',
  {
    name: 'Buyer Inc.',
    address: { street: '1 Market Street', city: 'San Francisco', postalCode: '94105', country: 'US' },
    email: 'ap@buyer.example',
    phone: null,
    vatId: null,
    endpoint: { schemeId: '0088', value: '4035811991014' },
  },
  [line(1, 'Hardware appliance', 2, 240000, 0, 'G')],
  { currency: 'USD' },
);

export const mixedRates = doc('INV-2027-0004', deBuyer, [
  line(1, 'Books', 3, 2997, 7, 'S'),
  // 3 pieces for 10.00 net: the unit price does not divide, the base quantity carries it.
  line(2, 'Stationery', 3, 1000, 19, 'S'),
  line(3, 'Gift voucher', 1, 2500, 0, 'Z'),
]);

export const creditNote: EInvoiceDocument = {
  ...doc('CN-2027-0001', deBuyer, [
    line(1, 'Consulting, March', 3, 30000, 19, 'S'),
    line(2, 'Licence', 1, 4999, 19, 'S'),
  ]),
  kind: 'credit_note',
  dueDate: null,
  paymentTerms: 'Credits invoice INV-2027-0001.',
  precedingInvoice: { number: 'INV-2027-0001', issueDate: '2027-03-01' },
  note: 'Invoice voided: wrong buyer',
};

/** An issued invoice whose buyer was corrected (name, address, routing address). */
export const corrected = doc(
  'INV-2027-0005',
  {
    ...deBuyer,
    name: 'Käufer Holding AG',
    address: { street: 'Leopoldstraße 10', city: 'München', postalCode: '80802', country: 'DE' },
    endpoint: { schemeId: '0204', value: '04011000-12345-03' },
  },
  [line(1, 'Support plan', 12, 120000, 19, 'S')],
  { buyerReference: '04011000-12345-03' },
);

export const MATRIX = { domesticDE, reverseChargeFR, exportUS, mixedRates, creditNote, corrected };
