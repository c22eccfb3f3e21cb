import { describe, expect, it } from 'vitest';
import { contrastOnWhite, hexColor, moneyFormatter, percent, textOn } from './format';
import { translator } from './i18n';
import { apiBase } from './api';
import { COUNTRY_CODES, countryOptions } from './countries';

describe('amounts', () => {
  it('formats minor units with each currency’s own decimals in the page language', () => {
    const en = moneyFormatter('en');
    const de = moneyFormatter('de');
    expect(en(11900, 'EUR')).toBe('€119.00');
    expect(de(11900, 'eur')).toBe('119,00\u00a0€');
    expect(en(11900, 'JPY')).toBe('¥11,900');
    expect(en(12345, 'KWD')).toBe('KWD\u00a012.345');
    expect(en(-500, 'USD')).toBe('-$5.00');
    expect(percent('de', 19)).toBe('19\u00a0%');
    expect(percent('en', 7.7)).toBe('7.7%');
  });
});

describe('brand colour', () => {
  it('accepts only #rgb and #rrggbb', () => {
    expect(hexColor('#0a84ff')).toBe('#0a84ff');
    expect(hexColor('#fa0')).toBe('#ffaa00');
    expect(hexColor('red')).toBeUndefined();
    expect(hexColor('#0a84ff; background: url(x)')).toBeUndefined();
    expect(hexColor(undefined)).toBeUndefined();
  });

  it('puts the better-contrasting text on it', () => {
    expect(textOn('#ffffff')).toBe('#000000');
    expect(textOn('#ffdd00')).toBe('#000000');
    expect(textOn('#000000')).toBe('#ffffff');
    expect(textOn('#2944b8')).toBe('#ffffff');
    expect(contrastOnWhite('#2944b8')).toBeGreaterThan(4.5);
    expect(contrastOnWhite('#ffdd00')).toBeLessThan(4.5);
  });
});

describe('texts and addresses', () => {
  it('fills placeholders and falls back to the key', () => {
    const t = translator({ pay: 'Pay {amount}', ref: '{a} and {a}, not {b}' });
    expect(t('pay', { amount: '€5.00' })).toBe('Pay €5.00');
    expect(t('ref', { a: 1 })).toBe('1 and 1, not {b}');
    expect(t('missing')).toBe('missing');
  });

  it('calls the API relative to the page, whatever host or prefix serves it', () => {
    expect(apiBase('http://127.0.0.1:8081/c/cs_1?transactionId=x').href).toBe('http://127.0.0.1:8081/api/v1/');
    expect(apiBase('https://shop.example/pay/c/cs_1').href).toBe('https://shop.example/pay/api/v1/');
  });

  it('names every country in the page language, sorted by name', () => {
    expect(new Set(COUNTRY_CODES).size).toBe(COUNTRY_CODES.length);
    expect(COUNTRY_CODES).toEqual(expect.arrayContaining(['DE', 'FR', 'NL', 'AT', 'GB', 'US', 'CH']));
    const de = countryOptions('de');
    expect(de.find((c) => c.code === 'DE')?.name).toBe('Deutschland');
    const names = de.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'de')));
  });
});
