import type { Random } from './prng.ts';

/** Why a datagram was dropped. */
export type DropCause = 'random' | 'burst' | 'queue';

/** Decides, datagram by datagram, whether the link loses it (a state machine for burst models). */
export interface LossModel {
  /** The cause when this datagram is lost, undefined when it passes. */
  next(): 'random' | 'burst' | undefined;
}

/** Independent (Bernoulli) loss: each datagram lost with probability `rate`. */
export function randomLoss(rate: number, random: Random): LossModel {
  return { next: () => (rate > 0 && random() < rate ? 'random' : undefined) };
}

/**
 * Gilbert–Elliott parameters: two states, Good and Bad, with a loss probability in each and a chance per datagram
 * of moving to the other one. The mean stay in Bad is 1 / pBadToGood datagrams.
 */
export interface GilbertElliott {
  readonly pGoodToBad: number;
  readonly pBadToGood: number;
  /** Loss probability in Good (usually 0). */
  readonly lossInGood: number;
  /** Loss probability in Bad (1: every datagram of a burst is lost). */
  readonly lossInBad: number;
}

/**
 * The simple Gilbert model for a loss rate and a mean burst length (in datagrams): Bad loses all, Good none.
 * Stationary share of Bad = p / (p + r) = rate, mean burst = 1 / r.
 */
export function gilbertForBursts(rate: number, meanBurst: number): GilbertElliott {
  if (!(rate >= 0 && rate < 1)) throw new RangeError(`burst loss rate must be in [0, 1), got ${rate}`);
  if (!(meanBurst >= 1)) throw new RangeError(`mean burst length must be at least 1, got ${meanBurst}`);
  const r = 1 / meanBurst;
  return { pGoodToBad: (rate * r) / (1 - rate), pBadToGood: r, lossInGood: 0, lossInBad: 1 };
}

/** The Gilbert–Elliott chain; it starts in Good. */
export function gilbertElliottLoss(params: GilbertElliott, random: Random): LossModel {
  let bad = false;
  return {
    next() {
      bad = bad ? random() >= params.pBadToGood : random() < params.pGoodToBad;
      const p = bad ? params.lossInBad : params.lossInGood;
      return p > 0 && random() < p ? 'burst' : undefined;
    },
  };
}
