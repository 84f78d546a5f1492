export { gilbertElliottLoss, gilbertForBursts, randomLoss, type DropCause, type GilbertElliott, type LossModel } from './loss.ts';
export { seededRandom, type Random } from './prng.ts';
export { portRangeMappings, startImpairmentRelay, type ImpairmentRelay, type RelayMapping, type RelayOptions, type UdpEndpoint } from './relay.ts';
export { emptyCounters, LinkScheduler, type LinkCounters, type LinkImpairment, type Verdict } from './scheduler.ts';
export { TokenBucketShaper, type RateLimit } from './shaper.ts';
