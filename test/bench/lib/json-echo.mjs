// Bare Fastify answering a JSON body: parses the POSTed JSON and answers a JSON object of the size
// of a tax preview. The reference of `pnpm bench:tax-preview`.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const fastify = createRequire(join(process.env.BENCH_ROOT, 'services/gateway-public/package.json'))('fastify');
const app = fastify();
const answer = {
  taxIncluded: true,
  totalNet: 8403,
  totalTax: 1597,
  totalGross: 10000,
  taxBreakdown: [{ taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: 8403, taxAmount: 1597 }],
  currency: 'EUR',
  lines: [
    {
      name: 'Pro plan',
      quantity: 1,
      net: 8403,
      tax: 1597,
      gross: 10000,
      taxRate: 19,
      taxRateCode: 'VAT_DE_STANDARD',
      reason: 'reference',
    },
  ],
  buyer: { type: 'consumer', vatIdStatus: 'not_given', vatIdTreatment: 'reference', consultationNumber: null },
};
app.post('/', async (req) => ({ ...answer, currency: req.body?.billingAddress?.country ? 'EUR' : 'XXX' }));
app.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log(JSON.stringify({ port: app.server.address().port })));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
