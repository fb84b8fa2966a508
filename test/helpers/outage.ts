/** The 503's sentences, for the outage tests. */
import { UNANSWERED_MESSAGE, UNAVAILABLE_MESSAGE } from '../../src/errors';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Either 503 sentence: "did not answer" for a command that was sent and timed out, "is
 * unavailable; ... no effect" for one refused before it was sent (after the first timeout the
 * pod holds Redis unreachable, with one probe per 250 ms, so which one a request gets depends
 * on when it comes).
 */
export const OUTAGE_MESSAGE: unknown = expect.stringMatching(
  new RegExp(`^(${escaped(UNAVAILABLE_MESSAGE)}|${escaped(UNANSWERED_MESSAGE)})$`),
);
