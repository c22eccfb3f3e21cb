/** Periods of the tax screens' charts. */

export interface Bucket {
  /** First day of the month or quarter, in seconds. */
  at: number;
  startDate: string;
  endDate: string;
  /** Month (0-11) and year of the first day. */
  month: number;
  year: number;
  quarterly: boolean;
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The months of a period (its quarters when it spans more than twelve months), each cut to the period. */
export function periodBuckets(startDate: string, endDate: string): Bucket[] {
  const [sy, sm] = startDate.split('-').map(Number) as [number, number];
  const [ey, em] = endDate.split('-').map(Number) as [number, number];
  const months = (ey - sy) * 12 + (em - sm) + 1;
  if (!(months > 0) || months > 40) return [];
  const quarterly = months > 12;
  const step = quarterly ? 3 : 1;
  const first = quarterly ? Math.floor((sm - 1) / 3) * 3 : sm - 1;
  const out: Bucket[] = [];
  for (let m = first; Date.UTC(sy, m, 1) <= Date.parse(`${endDate}T00:00:00Z`); m += step) {
    const from = Date.UTC(sy, m, 1);
    const to = Date.UTC(sy, m + step, 0);
    out.push({
      at: from / 1000,
      startDate: ymd(Math.max(from, Date.parse(`${startDate}T00:00:00Z`))),
      endDate: ymd(Math.min(to, Date.parse(`${endDate}T00:00:00Z`))),
      month: new Date(from).getUTCMonth(),
      year: new Date(from).getUTCFullYear(),
      quarterly,
    });
  }
  return out;
}
