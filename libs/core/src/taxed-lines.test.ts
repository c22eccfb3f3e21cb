import { describe, expect, it } from 'vitest';
import { breakdownByRate, splitTaxedLines } from './taxed-lines';

describe('splitTaxedLines', () => {
  it('splits the gross exactly and the tax in proportion, rounded half away from zero', () => {
    const parts = splitTaxedLines(
      [
        { gross: 11900, tax: 1900 },
        { gross: 10700, tax: 700 },
      ],
      11300,
      22600,
    );
    expect(parts).toEqual([
      { gross: 5950, tax: 950, net: 5000 },
      { gross: 5350, tax: 350, net: 5000 },
    ]);
    expect(splitTaxedLines([{ gross: 3, tax: -1 }], 1, 3)).toEqual([{ gross: 1, tax: 0, net: 1 }]);
    expect(splitTaxedLines([{ gross: 2, tax: -1 }], 1, 2)).toEqual([{ gross: 1, tax: -1, net: 2 }]);
  });

  it('gives a line whose gross is not positive no tax', () => {
    expect(
      splitTaxedLines(
        [
          { gross: 0, tax: 5 },
          { gross: 100, tax: 10 },
        ],
        50,
        100,
      ),
    ).toEqual([
      { gross: 0, tax: 0, net: 0 },
      { gross: 50, tax: 5, net: 45 },
    ]);
  });
});

describe('breakdownByRate', () => {
  it('sums net and tax per rate code and rate, in first-seen order', () => {
    const line = (taxRateCode: string, taxRate: number, net: number, tax: number) => ({
      taxRateCode,
      taxRate,
      net,
      tax,
    });
    expect(breakdownByRate([line('S', 19, 100, 19), line('R', 7, 50, 4), line('S', 19, 10, 2)])).toEqual([
      { taxRate: 19, taxRateCode: 'S', taxableBase: 110, taxAmount: 21 },
      { taxRate: 7, taxRateCode: 'R', taxableBase: 50, taxAmount: 4 },
    ]);
  });
});
