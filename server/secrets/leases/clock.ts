// Time for the lease table: the system clock, or a manual one that tests advance.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `run` after `ms` milliseconds; the timer never keeps the process alive. */
  setTimer(ms: number, run: () => void): unknown;
  clearTimer(handle: unknown): void;
}

/** setTimeout takes at most 2^31 - 1 ms (about 24.8 days); longer waits are chained. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, run) => {
    const timer = setTimeout(run, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    timer.unref();
    return timer;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A clock that stands still until advanced; due timers run in order of their time. */
export class ManualClock implements Clock {
  #now: number;
  #next = 0;
  readonly #timers = new Map<number, { at: number; run: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, run: () => void): unknown {
    const id = ++this.#next;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), run });
    return id;
  }

  clearTimer(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward, running every timer that falls due on the way. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = Math.max(this.#now, due[1].at);
      due[1].run();
    }
    this.#now = until;
  }
}
