import { buildAppToken } from '@reeltime/token';
import type { Clock } from '../../clock/index.ts';

/** Share of the validity after which the cached app token is replaced, so no call carries a dying token. */
export const APP_TOKEN_REFRESH_AT = 0.8;

/**
 * One cached app token (the sample's single-entry cache), rebuilt once 80 % of its validity has passed
 * instead of at the very end. Time comes from the injected clock; tokens carry the clock's issue time.
 */
export class AppTokenCache {
  #token = '';
  #refreshAt = 0;
  #builds = 0;

  constructor(
    private readonly appId: string,
    private readonly appCertificate: string,
    private readonly expireSecond: number,
    private readonly clock: Clock,
  ) {}

  /** The cached token, rebuilt when missing or past its refresh point; '' when the credentials cannot build one. */
  get(): string {
    const now = this.clock.now();
    if (this.#token !== '' && now < this.#refreshAt) return this.#token;
    const issueTs = Math.floor(now / 1000);
    const token = buildAppToken(this.appId, this.appCertificate, this.expireSecond, { issueTs });
    if (token === '') return '';
    this.#builds++;
    this.#token = token;
    this.#refreshAt = issueTs * 1000 + Math.floor(this.expireSecond * 1000 * APP_TOKEN_REFRESH_AT);
    return token;
  }

  /** Drops the cached token (the chat service refused it). */
  invalidate(): void {
    this.#token = '';
  }

  /** How many tokens were built (tests observe refreshes). */
  get builds(): number {
    return this.#builds;
  }
}
