/**
 * The verdict the fault tests (fault suite, NATS cluster, two replicas) pass on each pay flow's
 * IPNs, and the table they print: one place for the rule of docs/ipn.md.
 */

/** What a transaction record says about its statuses and IPN deliveries (Admin GET /transactions/:id). */
export interface IpnRecord {
  status: number;
  statusHistory: { from: number | null; to: number }[];
  ipn?: {
    deliveries?: { status: number; state: string; attempts: { error: string | null }[] }[];
  } | null;
}

/** One IPN POST the merchant's receiver got for the transaction. */
export interface ReceivedIpn {
  status: number;
  valid: boolean;
}

export interface IpnVerdict {
  problems: string[];
  /** Repeated POSTs that the at-least-once rule explains (an earlier attempt failed or was cut off). */
  dupOk: number;
  /** Repeated POSTs it does not explain (each also a problem). */
  dupBad: number;
}

/**
 * Exactly one signed IPN per status change (docs/ipn.md): a status superseded before it was sent is
 * not sent; a repeat only as a further recorded attempt after one the notifier saw fail or that a
 * crash or outage cut off before its outcome was stored; no IPN for a status the record never had.
 */
export function ipnVerdict(tag: string, rec: IpnRecord, mine: readonly ReceivedIpn[]): IpnVerdict {
  const out: IpnVerdict = { problems: [], dupOk: 0, dupBad: 0 };
  const changes = rec.statusHistory.filter((h) => h.from !== null).map((h) => h.to);
  for (const status of new Set(changes)) {
    const got = mine.filter((i) => i.status === status);
    const deliveries = (rec.ipn?.deliveries ?? []).filter((d) => d.status === status);
    const d = deliveries[0];
    if (deliveries.length !== 1 || !d) {
      out.problems.push(`${tag}: ${deliveries.length} IPN deliveries for status ${status}`);
      continue;
    }
    if (d.state === 'superseded') {
      if (got.length > 0) out.problems.push(`${tag}: status ${status} superseded yet POSTed ${got.length}x`);
      continue;
    }
    if (d.state !== 'succeeded') out.problems.push(`${tag}: IPN delivery for status ${status} ${d.state}`);
    if (got.length === 0) out.problems.push(`${tag}: no IPN for status ${status}`);
    else if (got.length > 1) {
      const cutOff = d.attempts.slice(0, -1).every((a) => a.error !== null);
      if (cutOff && got.length <= d.attempts.length) out.dupOk += got.length - 1;
      else {
        out.dupBad += got.length - 1;
        out.problems.push(
          `${tag}: status ${status} POSTed ${got.length}x with ${d.attempts.length} recorded attempt(s)`,
        );
      }
    }
  }
  for (const i of mine)
    if (!changes.includes(i.status)) out.problems.push(`${tag}: IPN for status ${i.status}, which it never had`);
  return out;
}

/** `header` and `rows` as aligned text lines: the header, a rule, then one line per row. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((l) => (l[c] ?? '').length)));
  const render = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  return [render(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(render)];
}

/** Milliseconds as seconds with one decimal, '-' when unknown. */
export const seconds = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);

/** A fault injected under pay load (NATS cluster, two replicas): when, and when the system was back. */
export interface FaultWindow {
  fault: string;
  injectedAt: number;
  /** The failed part is back. */
  restoredAt?: number;
  /** First final IPN of a flow started after `restoredAt`. */
  recoveredAt?: number;
  detail: string;
  problems: string[];
}

/** What the pay flows started in one window came to. */
export interface WindowTally {
  started: number;
  captured: number;
  completed: number;
  ipns: number;
  dup: number;
  failedSteps: number;
  problems: string[];
}

/** One empty tally per window, holding the window's own problems. */
export function windowTallies(windows: readonly FaultWindow[]): WindowTally[] {
  return windows.map((w) => ({
    started: 0,
    captured: 0,
    completed: 0,
    ipns: 0,
    dup: 0,
    failedSteps: 0,
    problems: [...w.problems],
  }));
}

/** The index of the window a moment falls in (the last one injected at or before it; the first otherwise). */
export function windowIndex(windows: readonly FaultWindow[], t: number): number {
  return windows.reduce((idx, w, i) => (w.injectedAt <= t ? i : idx), 0);
}

/**
 * Adds a flow's transaction to its window's tally: its IPNs, and (with its record) one completion
 * exactly when the sandbox captured it, only valid signatures, and the IPN rule of {@link ipnVerdict}.
 */
export function tallyTransaction(
  row: WindowTally,
  tag: string,
  captured: boolean,
  rec: IpnRecord | undefined,
  mine: readonly ReceivedIpn[],
): void {
  row.ipns += mine.length;
  if (!rec) return;
  const completions = rec.statusHistory.filter((h) => h.to === 1).length;
  if (rec.status === 1) row.completed += 1;
  if (captured && (rec.status !== 1 || completions !== 1))
    row.problems.push(`${tag}: captured but status ${rec.status} with ${completions} completions`);
  if (!captured && completions > 0)
    row.problems.push(`${tag}: completed (${completions}x) but the sandbox never captured it`);
  if (mine.some((i) => !i.valid)) row.problems.push(`${tag}: IPN with an invalid signature`);
  // Exactly one signed IPN per status change (docs/ipn.md: a repeat only as a further recorded
  // attempt after one that failed or was cut off; counted, and failed if not so explained).
  const verdict = ipnVerdict(tag, rec, mine);
  row.dup += verdict.dupOk + verdict.dupBad;
  row.problems.push(...verdict.problems);
}

/** The windows and their tallies as a text table: counts, time to restore and to recover, outcome. */
export function windowTable(windows: readonly FaultWindow[], rows: readonly WindowTally[]): string[] {
  const header = [
    'fault',
    'started',
    'captured',
    'completed',
    'IPNs',
    'dup',
    'failed steps',
    'restored',
    'recovery',
    'outcome',
    'detail',
  ];
  const since = (w: FaultWindow, at: number | undefined) => seconds(at !== undefined ? at - w.injectedAt : undefined);
  const lines = windows.map((w, i) => {
    const r = rows[i]!;
    return [
      w.fault,
      String(r.started),
      String(r.captured),
      String(r.completed),
      String(r.ipns),
      String(r.dup),
      String(r.failedSteps),
      since(w, w.restoredAt),
      since(w, w.recoveredAt),
      r.problems.length ? `FAIL (${r.problems.length})` : 'ok',
      w.detail,
    ];
  });
  return textTable(header, lines);
}

/** The first ten problems of each window, tagged with its fault. */
export function windowProblems(windows: readonly FaultWindow[], rows: readonly WindowTally[]): string[] {
  return windows.flatMap((w, i) => (rows[i]?.problems ?? []).slice(0, 10).map((p) => `  [${w.fault}] ${p}`));
}
