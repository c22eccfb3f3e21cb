import { describe, expect, it } from 'vitest';
import { fromNatsHeaders, toNatsHeaders } from './headers';

describe('headers', () => {
  it('round-trips application headers and drops reserved or unsafe ones', () => {
    const h = toNatsHeaders({
      'x-request-id': 'req-12345678',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'Nats-Msg-Id': 'spoofed',
      'x-bad': 'a\r\nb',
      'bad name': 'x',
    });
    expect(fromNatsHeaders(h)).toEqual({
      'x-request-id': 'req-12345678',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(fromNatsHeaders(undefined)).toEqual({});
  });
});
