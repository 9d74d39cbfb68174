// A token bucket (client-go's flowcontrol.NewTokenBucketRateLimiter, TryAccept): `burst`
// tokens at first, refilled at `perSecond`; a take without a token is refused at once.
// Pure: the caller passes the time.

export class TokenBucket {
  private tokens: number;
  private last: number | undefined;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Takes a token at `nowMs` if there is one. */
  take(nowMs: number): boolean {
    if (this.last !== undefined && nowMs > this.last) this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) / 1000) * this.perSecond);
    if (this.last === undefined || nowMs > this.last) this.last = nowMs;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
