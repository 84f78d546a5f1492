// Checks of a speaker timeline against the turns its publishers really took (toneTurns: the tone sounds in one half of
// every period; the publisher's sender reports date each half on our clock).
import assert from 'node:assert/strict';
import type { SyntheticPublisher } from '../../../channel/publisher/index.ts';
import type { SpeakersDocument } from '../../../media/speech/index.ts';

export interface TurnTaker {
  readonly uid: string;
  readonly publisher: Pick<SyntheticPublisher, 'captureTimeOf'>;
  readonly periodMs: number;
  readonly half: 'first' | 'second';
}

interface Span {
  readonly startMs: number;
  readonly endMs: number;
}

/** The turns of `t` that lie wholly inside `within`, on our clock. */
export function turnsOf(t: TurnTaker, within: Span): Span[] {
  const offset = t.half === 'first' ? 0 : t.periodMs / 2;
  const out: Span[] = [];
  for (let k = 0; k < 500; k++) {
    const startMs = t.publisher.captureTimeOf(k * t.periodMs + offset);
    const endMs = t.publisher.captureTimeOf(k * t.periodMs + offset + t.periodMs / 2);
    if (startMs === undefined || endMs === undefined) continue;
    if (startMs > within.endMs) break;
    if (startMs >= within.startMs && endMs <= within.endMs) out.push({ startMs, endMs });
  }
  return out;
}

/**
 * Every whole turn inside `within` is one interval of its uid, both edges within `toleranceMs`; no interval of a turn
 * taker lies outside its turns; `silent` uids have none. Returns the edge errors (ms), for the log.
 */
export function assertTimelineFollowsTurns(
  doc: SpeakersDocument,
  takers: readonly TurnTaker[],
  within: Span,
  opts: { readonly toleranceMs: number; readonly silent?: readonly string[] },
): number[] {
  const errors: number[] = [];
  for (const t of takers) {
    const mine = doc.speakers.filter((s) => s.uid === t.uid);
    const turns = turnsOf(t, within);
    assert.ok(turns.length >= 1, `uid ${t.uid}: a whole turn inside the recording`);
    for (const turn of turns) {
      const over = mine.filter((s) => s.startUtcMs < turn.endMs && s.endUtcMs > turn.startMs);
      const show = JSON.stringify(over.map((s) => [s.startUtcMs - turn.startMs, s.endUtcMs - turn.startMs]));
      assert.equal(over.length, 1, `uid ${t.uid}: one interval in its turn of ${turn.endMs - turn.startMs} ms, found ${show} (ms from the turn's start)`);
      const s = over[0]!;
      errors.push(s.startUtcMs - turn.startMs, s.endUtcMs - turn.endMs);
      assert.ok(Math.abs(s.startUtcMs - turn.startMs) <= opts.toleranceMs, `uid ${t.uid}: starts ${s.startUtcMs - turn.startMs} ms from its turn`);
      assert.ok(Math.abs(s.endUtcMs - turn.endMs) <= opts.toleranceMs, `uid ${t.uid}: ends ${s.endUtcMs - turn.endMs} ms from its turn`);
    }
    // Nothing while the other one has the turn (an interval may run into the window's edges).
    for (const s of mine.filter((x) => x.startUtcMs >= within.startMs && x.endUtcMs <= within.endMs)) {
      const inTurn = turnsOf(t, { startMs: s.startUtcMs - t.periodMs, endMs: s.endUtcMs + t.periodMs }).some(
        (turn) => s.startUtcMs < turn.endMs && s.endUtcMs > turn.startMs,
      );
      assert.ok(inTurn, `uid ${t.uid}: interval ${s.startUtcMs}-${s.endUtcMs} lies in none of its turns`);
    }
  }
  for (const uid of opts.silent ?? []) {
    assert.deepEqual(doc.speakers.filter((s) => s.uid === uid), [], `silent uid ${uid} has no interval`);
  }
  return errors;
}
