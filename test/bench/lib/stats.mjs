// Small statistics helpers shared by the benchmark scripts.

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values) {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export const round = (n, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);
