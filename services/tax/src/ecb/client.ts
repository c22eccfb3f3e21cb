import { parseEurofxref, type EcbPublication } from './xml';

/** The ECB could not be asked, or answered with something other than a reference-rate file. */
export class EcbFetchError extends Error {
  override readonly name = 'EcbFetchError';
}

/** Largest file read (the full history since 1999 is about 2 MB; the 90-day file about 30 kB). */
const MAX_BYTES = 8 * 1024 * 1024;

/**
 * Fetches one eurofxref file and parses it. One GET with a deadline and no retries: the fetch job
 * tries again on its next round. Throws EcbFetchError or EurofxrefFormatError.
 */
export async function fetchEurofxref(url: string, deadlineMs: number): Promise<EcbPublication[]> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/xml, text/xml' },
      redirect: 'follow',
      signal: AbortSignal.timeout(deadlineMs),
    });
  } catch (err) {
    const why =
      err instanceof Error && err.name === 'TimeoutError'
        ? `no answer within ${deadlineMs} ms`
        : err instanceof Error
          ? err.cause instanceof Error
            ? err.cause.message
            : err.message
          : String(err);
    throw new EcbFetchError(`GET ${url}: ${why}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new EcbFetchError(`GET ${url}: HTTP ${res.status}`);
  }
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_BYTES) {
    await res.body?.cancel();
    throw new EcbFetchError(`GET ${url}: ${length} bytes is more than a reference-rate file`);
  }
  const text = await res.text();
  if (text.length > MAX_BYTES)
    throw new EcbFetchError(`GET ${url}: ${text.length} characters is more than a reference-rate file`);
  return parseEurofxref(text);
}
