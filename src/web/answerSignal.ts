/**
 * The signal an entrance hands to an operation whose answer carries leases (a pull): it is
 * aborted when the client leaves before the whole answer was handed to it, whether before
 * the operation answered (nothing more is leased) or while the answer was being written (a
 * client that stopped reading, then left: its leases go back). An answer whose last byte
 * reached the operating system never aborts it.
 *
 * Node emits 'finish' also when the write ended because the peer reset the connection, and
 * a destroyed socket's unwritten buffer reads as empty (`writableFinished`), so a finish
 * counts only when its socket has no error (a reset or a broken pipe) at that moment. A
 * client that read the whole answer and closed at once may have closed the socket by then,
 * without an error.
 */
import type { ServerResponse } from 'node:http';

export function answerSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (res.closed && !res.writableFinished) {
    gone.abort();
    return gone.signal;
  }
  // kept now: the response lets go of its socket by the time it finishes
  const socket = res.socket;
  let delivered = false;
  res.once('finish', () => (delivered = !socket?.errored));
  res.once('close', () => (delivered ? undefined : gone.abort()));
  return gone.signal;
}
