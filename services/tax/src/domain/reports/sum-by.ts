/** Sums rows by a key, keeping the first row's fields; rows come out in the order their keys first appear. */
export function sumBy<T extends { net: number; tax: number }>(
  rows: T[],
  key: (r: T) => string,
  add: (into: T, r: T) => void,
): T[] {
  const out = new Map<string, T>();
  for (const r of rows) {
    const k = key(r);
    const seen = out.get(k);
    if (seen) add(seen, r);
    else out.set(k, { ...r });
  }
  return [...out.values()];
}

/** Adds a row's net, tax and line count to the sum of its key. */
export function addLines(
  into: { net: number; tax: number; lines: number },
  r: { net: number; tax: number; lines: number },
): void {
  into.net += r.net;
  into.tax += r.tax;
  into.lines += r.lines;
}
