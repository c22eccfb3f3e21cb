#!/usr/bin/env node
// `pnpm bench:tax-engine`: line computations per second of the tax engine on one core, beside a
// reference measured in the same run (a script that prints figures, not a test). See
// docs/performance.md.
//
//   pnpm bench:tax-engine [--seconds 5] [--docs 2000] [--seed 7]
//
// Needs `pnpm build` (imports the built engine from services/tax/dist). The workload is a fixed,
// seeded mix of documents of 1-12 lines: domestic, OSS destination and below-threshold sales,
// reverse charge and intra-community supplies, exports, reduced categories, manual rates, gross
// and net lines, per-line and per-document rounding, tax points from 2024 to today.
// References: JSON.parse of each document's input (what merely reading the request costs), and a plain loop doing the same exact BigInt VAT arithmetic per line (amount·r/(1+r),
// round half up) with no place-of-supply rules, rate lookup or result objects: the floor of what
// any exact engine has to do. The ratios say how much the rules and the evidence cost on top.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const req = createRequire(join(ROOT, 'services/tax/package.json'));
const { calculateTax } = req('./dist/domain/engine.js');
const { DEFAULT_RATES } = req('./dist/domain/default-rates.js');
const { DEFAULT_RULES } = req('./dist/domain/default-rules.js');
const { EU_MEMBER_STATES } = req('./dist/domain/eu.js');

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    docs: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '7' },
  },
});
const SECONDS = Number(args.seconds);
const TARGET = 50_000;

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(Number(args.seed));
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));

const rates = DEFAULT_RATES.map((r, i) => ({
  ...r,
  id: i.toString(16).padStart(24, '0'),
  categories: [...r.categories],
}));
const rules = DEFAULT_RULES.map((r, i) => ({ ...r, id: (1000 + i).toString(16).padStart(24, '0') }));
const members = Object.keys(EU_MEMBER_STATES);
const buyers = [...Array(6).fill('DE'), ...members, 'US', 'GB', 'CH', 'XI'];
const itemTypes = ['digital_service', 'digital_service', 'goods', 'goods', 'service', 'shipping'];
const categories = [
  undefined,
  undefined,
  undefined,
  'books',
  'ebooks',
  'food',
  'newspapers',
  'restaurant',
  'medicines',
];
const today = new Date().toISOString().slice(0, 10);

function vatCheck(business) {
  return {
    vatId: business ? 'FR40303265045' : null,
    status: business ? 'valid' : 'not_given',
    source: business ? 'vies' : null,
    checkedAt: null,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
  };
}

function document() {
  const priceMode = pick(['gross', 'gross', 'net']);
  const lines = Array.from({ length: int(1, 12) }, (_, i) => {
    const line = {
      name: `item ${i}`,
      quantity: int(1, 4),
      unitPrice: rnd() < 0.1 ? -int(100, 2000) : int(99, 49_999),
      itemType: pick(itemTypes),
    };
    const category = pick(categories);
    if (category) line.category = category;
    if (rnd() < 0.05) line.taxRate = pick([7, 19]);
    if (rnd() < 0.05) line.amountType = pick(['gross', 'net']);
    return line;
  });
  const input = {
    date: rnd() < 0.7 ? today : new Date(Date.UTC(2024, 0, 1) + int(0, 1000) * 86_400_000).toISOString().slice(0, 10),
    currency: 'EUR',
    priceMode,
    lines,
    buyer: { country: pick(buyers), postcode: null },
    vatIdValidation: 'vies',
    vatIdCheck: vatCheck(rnd() < 0.2),
  };
  const ctx = {
    settings: {
      homeCountry: pick(['DE', 'DE', 'FR', 'NL', 'FI']),
      ossEnabled: rnd() < 0.6,
      iossEnabled: false,
      viesEnabled: true,
      priceMode,
      rounding: { level: pick(['per_line', 'per_document']), method: pick(['half_up', 'half_even']) },
    },
    ossThresholdExceeded: rnd() < 0.3,
    rates,
    rules,
    now: new Date(),
  };
  return { input, ctx };
}

const docs = Array.from({ length: Number(args.docs) }, document);
const totalLines = docs.reduce((a, d) => a + d.input.lines.length, 0);
const refLines = docs.flatMap((d) =>
  d.input.lines.map((l) => ({
    amount: BigInt(l.quantity) * BigInt(l.unitPrice),
    bp: BigInt(pick([1900, 2000, 2100, 700, 550, 0])),
    gross: d.input.priceMode === 'gross',
  })),
);

/** Runs `fn(i)` over and over for `seconds`; returns items per second (items counted by fn's return). */
function measure(seconds, fn) {
  const end = performance.now() + seconds * 1000;
  let items = 0;
  let i = 0;
  let start = performance.now();
  while (performance.now() < end) {
    items += fn(i);
    i += 1;
  }
  return items / ((performance.now() - start) / 1000);
}

// the reference's whole exact computation: tax = amount·bp/(10000+bp) (gross) or amount·bp/10000 (net), half up
let sink = 0n;
function referenceLine(l) {
  const d = l.gross ? 10000n + l.bp : 10000n;
  const n = l.amount * l.bp;
  const q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  const tax = twice >= d ? (n < 0n ? q - 1n : q + 1n) : q;
  sink += tax;
  return Number(tax);
}

// sanity: every document computes (an error would make the figure meaningless)
let checked = 0;
for (const d of docs) {
  const out = calculateTax(d.input, d.ctx);
  if (out.totalGross !== out.totalNet + out.totalTax) throw new Error('totals do not add up');
  checked += out.lines.length;
}

console.log(
  `[bench] tax engine: ${docs.length} documents, ${totalLines} lines (mean ${(totalLines / docs.length).toFixed(1)} per document), ${SECONDS} s per measurement, one core`,
);
// warm-up of both paths
measure(
  Math.min(1, SECONDS / 5),
  (i) => calculateTax(docs[i % docs.length].input, docs[i % docs.length].ctx).lines.length,
);
measure(Math.min(1, SECONDS / 5), (i) => (referenceLine(refLines[i % refLines.length]), 1));

const docJson = docs.map((d) => JSON.stringify(d.input));
const parse = measure(SECONDS, (i) => JSON.parse(docJson[i % docJson.length]).lines.length);
const reference = measure(SECONDS, (i) => {
  referenceLine(refLines[i % refLines.length]);
  return 1;
});
const engine = measure(SECONDS, (i) => {
  const d = docs[i % docs.length];
  return calculateTax(d.input, d.ctx).lines.length;
});
const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`[bench] reference (exact BigInt VAT arithmetic only): ${fmt(reference)} lines/s`);
console.log(`[bench] reference (JSON.parse of the input):               ${fmt(parse)} lines/s`);
console.log(
  `[bench] engine (calculateTax, full rules and evidence):   ${fmt(engine)} lines/s  (${fmt(engine / (totalLines / docs.length))} documents/s)`,
);
console.log(
  `[bench] engine / BigInt reference: ${(engine / reference).toFixed(3)}; engine / JSON.parse: ${(engine / parse).toFixed(3)}  (${checked} lines checked, sink ${sink % 10n})`,
);
console.log(`[bench] target >= ${fmt(TARGET)} lines/s on one core: ${engine >= TARGET ? 'MET' : 'NOT MET'}`);
process.exitCode = engine >= TARGET ? 0 : 1;
