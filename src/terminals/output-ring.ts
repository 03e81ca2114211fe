/** What a terminal keeps of its recent output for a client that attaches later (a phone that slept). */
export const TERMINAL_RING_BYTES = 256 * 1024;

/**
 * The last `capacity` bytes of a terminal's output, in one fixed buffer: appending never allocates,
 * and older bytes are overwritten. A replay may start in the middle of an escape sequence or a
 * character; a terminal emulator recovers at the next one.
 */
export class OutputRing {
  private readonly buffer: Uint8Array;
  /** Where the next byte goes. */
  private end = 0;
  private length = 0;

  constructor(readonly capacity = TERMINAL_RING_BYTES) {
    this.buffer = new Uint8Array(capacity);
  }

  get size(): number {
    return this.length;
  }

  append(chunk: Uint8Array): void {
    // Only the last `capacity` bytes of a chunk larger than the ring can survive.
    const kept = chunk.byteLength > this.capacity ? chunk.subarray(chunk.byteLength - this.capacity) : chunk;
    const first = Math.min(kept.byteLength, this.capacity - this.end);
    this.buffer.set(kept.subarray(0, first), this.end);
    this.buffer.set(kept.subarray(first), 0);
    this.end = (this.end + kept.byteLength) % this.capacity;
    this.length = Math.min(this.capacity, this.length + kept.byteLength);
  }

  /** A copy of what is kept, oldest byte first. */
  contents(): Uint8Array {
    const start = (this.end - this.length + this.capacity) % this.capacity;
    if (start + this.length <= this.capacity) return this.buffer.slice(start, start + this.length);
    const out = new Uint8Array(this.length);
    out.set(this.buffer.subarray(start));
    out.set(this.buffer.subarray(0, this.end), this.capacity - start);
    return out;
  }
}
