/**
 * The upstream's two limits:
 * - per credential: `limit` requests per fixed window of `windowSec`, announced on every response by
 *   `RateLimit-Limit/Remaining/Reset`, then 429 with `retryAfterSec` and `Retry-After`;
 * - hosting only: per client IP per minute, by operation (see the hosting routes' route classes).
 */
export interface WindowVerdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetSec: number;
}

interface Window {
  startedAt: number;
  used: number;
}

export class FixedWindows {
  private readonly windows = new Map<string, Window>();

  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Counts one request for `key` if the window has room. */
  take(key: string): WindowVerdict {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, used: 0 };
      this.windows.set(key, window);
    }
    const resetSec = Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
    if (window.used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetSec };
    }
    window.used += 1;
    return { allowed: true, limit: this.limit, remaining: this.limit - window.used, resetSec };
  }

  reset(): void {
    this.windows.clear();
  }
}
