import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  countryCode,
  currencyCode,
  email,
  httpUrl,
  int32,
  isCleanText,
  metadata,
  money,
  MONEY_MAX,
  name,
  objectId,
  pageNumber,
  quantity,
  text,
  timestamp,
} from './schemas';

const ok = (s: z.ZodTypeAny, v: unknown) => s.safeParse(v).success;

describe('request schema building blocks', () => {
  it('text refuses NUL and unpaired surrogates but keeps paired ones and bounds the length', () => {
    expect(isCleanText('Zürich 😀')).toBe(true);
    expect(isCleanText('a\u0000b')).toBe(false);
    expect(isCleanText('\uD800')).toBe(false);
    expect(isCleanText('x\uDC00y')).toBe(false);
    expect(isCleanText('\uDE00\uD83D')).toBe(false);
    expect(ok(text(5), 'abcde')).toBe(true);
    expect(ok(text(5), 'abcdef')).toBe(false);
    expect(ok(text(5), 'ab\u0000')).toBe(false);
    expect(ok(text(10, 1), '')).toBe(false);
  });

  it('names are trimmed, required and clean', () => {
    expect(name(10).parse('  Shop  ')).toBe('Shop');
    expect(ok(name(10), '   ')).toBe(false);
    expect(ok(name(10), 'Sh\uD800op')).toBe(false);
    expect(ok(name(3), 'Shop')).toBe(false);
  });

  it('ids are 24 lower-case hex characters', () => {
    expect(ok(objectId(), 'a'.repeat(24))).toBe(true);
    expect(ok(objectId(), 'A'.repeat(24))).toBe(false);
    expect(ok(objectId(), 'a'.repeat(25))).toBe(false);
    expect(objectId('siteId').safeParse('x').error?.issues[0]?.message).toMatch(/siteId must be a 24-hex identifier/);
  });

  it('ISO codes have the right shape', () => {
    expect(countryCode.parse('de')).toBe('DE');
    expect(ok(countryCode, 'DEU')).toBe(false);
    expect(ok(countryCode, 'D\u0000')).toBe(false);
    expect(ok(currencyCode, 'EUR')).toBe(true);
    expect(ok(currencyCode, 'EURO')).toBe(false);
    expect(ok(currencyCode, 'E1R')).toBe(false);
  });

  it('money is a safe integer within the documented bounds; quantities fit int32', () => {
    expect(ok(money, MONEY_MAX)).toBe(true);
    expect(ok(money, -MONEY_MAX)).toBe(true);
    expect(ok(money, MONEY_MAX + 1)).toBe(false);
    expect(ok(money, 1e20)).toBe(false);
    expect(ok(money, 10.5)).toBe(false);
    expect(ok(money, '100')).toBe(false);
    expect(ok(quantity, 2_147_483_647)).toBe(true);
    expect(ok(quantity, 3_000_000_000)).toBe(false);
    expect(ok(int32, -2_147_483_649)).toBe(false);
    expect(ok(quantity, Infinity)).toBe(false);
  });

  it('URLs must be absolute http(s) and bounded', () => {
    expect(ok(httpUrl(), 'https://shop.example/thanks/{transactionId}')).toBe(true);
    expect(ok(httpUrl(), 'ftp://shop.example/')).toBe(false);
    expect(ok(httpUrl(), '/relative')).toBe(false);
    expect(ok(httpUrl(), 'javascript:alert(1)')).toBe(false);
    expect(ok(httpUrl(30), `https://a.example/${'x'.repeat(30)}`)).toBe(false);
    expect(ok(httpUrl(), 'https://a.example/\u0000')).toBe(false);
  });

  it('e-mails, timestamps, metadata and pages', () => {
    expect(email.parse(' a@b.example ')).toBe('a@b.example');
    expect(ok(email, 'not-an-email')).toBe(false);
    expect(ok(email, `${'a'.repeat(250)}@b.example`)).toBe(false);
    expect(ok(timestamp, '2030-01-31T12:00:00Z')).toBe(true);
    expect(ok(timestamp, '2030-01-31')).toBe(false);
    expect(ok(metadata(2), { a: '1', b: '2' })).toBe(true);
    expect(ok(metadata(2), { a: '1', b: '2', c: '3' })).toBe(false);
    expect(ok(metadata(), { ['k'.repeat(41)]: 'v' })).toBe(false);
    expect(ok(metadata(), { k: 'v\u0000' })).toBe(false);
    expect(pageNumber.parse(undefined)).toBe(1);
    expect(pageNumber.parse('7')).toBe(7);
    expect(ok(pageNumber, '3000000000')).toBe(false);
    expect(ok(pageNumber, '0')).toBe(false);
  });
});
