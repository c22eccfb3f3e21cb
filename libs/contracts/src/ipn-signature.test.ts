import { describe, expect, it } from 'vitest';
import { IpnHeaders, signIpn, verifyIpn } from './ipn-signature';

const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0cw';
const BODY = '{"id":"65f000000000000000000001","externalReference":"order-42","status":1}';
// Computed independently: printf '%s' '1700000000.<BODY>' | openssl dgst -sha256 -hmac '<SECRET>' -hex
const EXPECTED = '46d2dea8c5479181f8311c1089f536648c1a8c8fa779694fbf752bcb04a9dd11';

describe('signIpn', () => {
  it('is the hex HMAC-SHA256 of "<timestamp>.<rawBody>" keyed with the whole whsec_ string', () => {
    expect(signIpn(SECRET, 1700000000, BODY)).toBe(EXPECTED);
    expect(signIpn(SECRET, '1700000000', Buffer.from(BODY, 'utf8'))).toBe(EXPECTED);
  });

  it('changes with the key prefix, the timestamp and every body byte', () => {
    expect(signIpn(SECRET.slice('whsec_'.length), 1700000000, BODY)).not.toBe(EXPECTED);
    expect(signIpn(SECRET, 1700000001, BODY)).not.toBe(EXPECTED);
    expect(signIpn(SECRET, 1700000000, `${BODY} `)).not.toBe(EXPECTED);
  });
});

describe('verifyIpn', () => {
  const now = 1700000100;
  const headers = { [IpnHeaders.timestamp]: '1700000000', [IpnHeaders.signature]: EXPECTED };

  it('accepts a matching signature within the window, with any header case or a Headers object', () => {
    expect(verifyIpn(SECRET, headers, BODY, 300, now)).toEqual({ valid: true, timestamp: 1700000000 });
    const lower = { 'x-signature-timestamp': '1700000000', 'x-signature-hmac-sha256': EXPECTED.toUpperCase() };
    expect(verifyIpn(SECRET, lower, Buffer.from(BODY), 300, now).valid).toBe(true);
    expect(verifyIpn(SECRET, new Headers(headers), BODY, 300, now).valid).toBe(true);
  });

  it('rejects missing headers, malformed or stale timestamps and wrong signatures', () => {
    expect(verifyIpn(SECRET, {}, BODY, 300, now)).toEqual({ valid: false, reason: 'missing_headers' });
    expect(verifyIpn(SECRET, { ...headers, [IpnHeaders.timestamp]: '17e8' }, BODY, 300, now)).toEqual({
      valid: false,
      reason: 'malformed_timestamp',
    });
    expect(verifyIpn(SECRET, headers, BODY, 300, 1700000000 + 301)).toEqual({
      valid: false,
      reason: 'stale_timestamp',
    });
    expect(verifyIpn(SECRET, headers, BODY, 300, 1700000000 - 301)).toEqual({
      valid: false,
      reason: 'stale_timestamp',
    });
    expect(verifyIpn(SECRET, headers, BODY.replace('"status":1', '"status":2'), 300, now)).toEqual({
      valid: false,
      reason: 'bad_signature',
    });
    expect(verifyIpn('whsec_other', headers, BODY, 300, now).valid).toBe(false);
    expect(verifyIpn(SECRET, { ...headers, [IpnHeaders.signature]: 'zz' }, BODY, 300, now).valid).toBe(false);
  });
});
