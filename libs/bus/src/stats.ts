/** Messages of one event subject. */
export interface SubjectStats {
  published: number;
  consumed: number;
}

/** What a {@link Bus} sent and received since it connected, for benchmarks and the cost budget. */
export interface BusStats {
  /** Events stored by JetStream on this bus's publishes (duplicates included). */
  published: number;
  /** Of those, ids JetStream already had inside its duplicate window (nothing new stored). */
  duplicates: number;
  /** Messages handed to this bus's subscriptions, redeliveries included. */
  consumed: number;
  /** Messages acknowledged after their handler succeeded. */
  acked: number;
  /** Messages given back after a handler failure (redelivered after a backoff). */
  naked: number;
  /** Messages given up: unreadable, rejected as unprocessable or out of attempts. */
  terminated: number;
  /** Handlers running now. */
  handling: number;
  /** Per event subject (without the namespace). */
  bySubject: Record<string, SubjectStats>;
}

/** The counters behind {@link BusStats}, shared by a bus and its subscriptions. */
export class BusCounters {
  published = 0;
  duplicates = 0;
  consumed = 0;
  acked = 0;
  naked = 0;
  terminated = 0;
  private readonly subjects = new Map<string, SubjectStats>();

  subject(subject: string): SubjectStats {
    let s = this.subjects.get(subject);
    if (!s) {
      s = { published: 0, consumed: 0 };
      this.subjects.set(subject, s);
    }
    return s;
  }

  snapshot(handling: number): BusStats {
    return {
      published: this.published,
      duplicates: this.duplicates,
      consumed: this.consumed,
      acked: this.acked,
      naked: this.naked,
      terminated: this.terminated,
      handling,
      bySubject: Object.fromEntries([...this.subjects].map(([subject, s]) => [subject, { ...s }])),
    };
  }
}
