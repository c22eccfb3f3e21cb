import { isoDay, isPublicationDay, lastPublicationDays } from './calendar';
import { seededRates } from './rates';
import type { Publication } from './xml';

/** Publication days in the 90-day file, as its name says (the ECB counts calendar days; the sandbox publication days). */
export const HISTORY_DAYS = 90;

export interface LoggedRequest {
  at: string;
  file: string;
  status: number;
}

/** A day a test set: its rates over (or instead of) the seeded ones. */
interface DaySetting {
  rates: Record<string, number>;
  replace: boolean;
}

/**
 * State of the sandbox: the seeded calendar, days a test set or withdrew, the outage switch and a
 * log of the files served. In memory; gone on restart.
 */
export class EcbSandbox {
  private readonly set = new Map<string, DaySetting>();
  private readonly hidden = new Set<string>();
  private readonly log: LoggedRequest[] = [];
  outage: { mode: 'up' | 'down' } = { mode: 'up' };

  constructor(private readonly now: () => Date = () => new Date()) {}

  today(): string {
    return isoDay(this.now());
  }

  /** Publications of the last 90 publication days plus the days a test set, without the withdrawn ones; newest first. */
  publications(): Publication[] {
    const days = new Set([...lastPublicationDays(this.today(), HISTORY_DAYS), ...this.set.keys()]);
    return [...days]
      .filter((d) => !this.hidden.has(d))
      .sort((a, b) => b.localeCompare(a))
      .map((time) => ({ time, rates: this.ratesOf(time) }));
  }

  /** The newest publication (the daily file), or none. */
  latest(): Publication[] {
    return this.publications().slice(0, 1);
  }

  /** A day as the files show it: published or not, and its rates. */
  day(day: string): { date: string; published: boolean; rates: Record<string, number> } {
    const published =
      !this.hidden.has(day) && (this.set.has(day) || lastPublicationDays(this.today(), HISTORY_DAYS).includes(day));
    return { date: day, published, rates: published ? this.ratesOf(day) : {} };
  }

  /** Publishes `day` with `rates` (over the seeded ones unless `replace`), also a day the calendar skips. */
  setDay(day: string, rates: Record<string, number>, replace: boolean): void {
    const before = this.set.get(day);
    this.set.set(day, {
      rates: replace ? { ...rates } : { ...(before?.rates ?? {}), ...rates },
      replace: replace || (before?.replace ?? false),
    });
    this.hidden.delete(day);
  }

  /** Withdraws `day`: the files leave it out (a publication that is not out yet). */
  hideDay(day: string): void {
    this.set.delete(day);
    this.hidden.add(day);
  }

  record(file: string, status: number): void {
    this.log.push({ at: this.now().toISOString(), file, status });
  }

  requests(): { total: number; data: LoggedRequest[] } {
    return { total: this.log.length, data: [...this.log] };
  }

  reset(): void {
    this.set.clear();
    this.hidden.clear();
    this.log.length = 0;
    this.outage = { mode: 'up' };
  }

  private ratesOf(day: string): Record<string, number> {
    const setting = this.set.get(day);
    const seeded = isPublicationDay(day) && !setting?.replace ? seededRates(day) : {};
    const merged: Record<string, number> = { ...seeded, ...(setting?.rates ?? {}) };
    return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  }
}
