/**
 * The wire format between the API and a back-end service (TCP + mutual TLS): length-prefixed frames
 * (big-endian u32 length of the rest, u32 call id, u8 kind, payload), so many calls share one connection.
 */
import type { Duplex } from 'node:stream';

export const FRAME_KIND = {
  /** API → back-end: a message to handle. */
  CALL: 1,
  /** Back-end → API: the answer to the call of the same id. */
  REPLY: 2,
  /** API → back-end: can you serve (store open and answering)? A client's first ping, call id 0, tells it the
   *  service accepted its certificate: only then does it send calls. */
  PING: 3,
  /** Back-end → API: one byte, 1 = ready. NOT_STARTED, FAILED and REFUSED carry a reason in UTF-8. */
  PONG: 4,
  /** Back-end → API: the call was not started (its runtime is down or shutting down); it may go elsewhere. */
  NOT_STARTED: 5,
  /** Back-end → API, call id 0, then the connection closes: this client is not allowed. */
  REFUSED: 6,
  /** Back-end → API: the call was started and its outcome is unknown (its runtime died); not to be resent. */
  FAILED: 7,
} as const;
export type FrameKind = (typeof FRAME_KIND)[keyof typeof FRAME_KIND];

// A CALL's or REPLY's payload is exactly the message the other transports carry (CBHDR + record).
const PREFIX = 4;
const HEADER = PREFIX + 5;
/**
 * Far above any message (a CBHDR and the largest record, a dispatcher turn's results, are some 120 KiB): a bigger
 * length is a broken or hostile peer.
 */
export const MAX_FRAME_BYTES = 1 << 20;

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export function encodeFrame(kind: FrameKind, callId: number, payload: Uint8Array = EMPTY): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  frame.writeUInt32BE(5 + payload.length, 0);
  frame.writeUInt32BE(callId, PREFIX);
  frame[PREFIX + 4] = kind;
  frame.set(payload, HEADER);
  return frame;
}
const EMPTY = new Uint8Array(0);

export interface Frame {
  kind: number;
  callId: number;
  /** Its own copy: it outlives the chunk it came in. */
  payload: Buffer;
}

/** Reassembles frames from a byte stream; throws FrameError for a length no peer of ours sends. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    let at = 0;
    while (this.buffered.length - at >= PREFIX) {
      const length = this.buffered.readUInt32BE(at);
      if (length < 5 || length > MAX_FRAME_BYTES)
        throw new FrameError(`frame length ${length} at byte ${at} is outside 5..${MAX_FRAME_BYTES}`);
      if (this.buffered.length - at < PREFIX + length) break;
      frames.push({
        callId: this.buffered.readUInt32BE(at + PREFIX),
        kind: this.buffered[at + PREFIX + 4]!,
        payload: Buffer.from(this.buffered.subarray(at + HEADER, at + PREFIX + length)),
      });
      at += PREFIX + length;
    }
    this.buffered = at === this.buffered.length ? Buffer.alloc(0) : this.buffered.subarray(at);
    return frames;
  }
}

/**
 * Reads the frames arriving on `socket`, a batch per chunk. A broken frame ends the reading: `onBroken`
 * is told, and the caller drops the connection (nothing after it can be trusted to line up).
 */
export function onFrames(
  socket: Duplex,
  handle: (frames: Frame[]) => void,
  onBroken: (error: FrameError) => void,
): void {
  const reader = new FrameReader();
  socket.on('data', (chunk: Buffer) => {
    let frames;
    try {
      frames = reader.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      onBroken(error);
      return;
    }
    handle(frames);
  });
}
