/** What a terminal keeps of its recent output for a client that attaches later (a phone that slept). */
export const TERMINAL_RING_BYTES = 256 * 1024;

/** What a ring holds before it first grows: a prompt and a few lines. */
const INITIAL_BYTES = 4 * 1024;

/**
 * The last `capacity` bytes of a terminal's output. The buffer doubles as output comes, up to
 * `capacity` (a terminal that printed little, kept after it exited, holds little); from there
 * appending never allocates, and older bytes are overwritten. A replay may start in the middle of an
 * escape sequence or a character; a terminal emulator recovers at the next one.
 */
export class OutputRing {
  private buffer: Uint8Array;
  /** Where the next byte goes. */
  private end = 0;
  private length = 0;

  constructor(readonly capacity = TERMINAL_RING_BYTES) {
    this.buffer = new Uint8Array(Math.min(INITIAL_BYTES, capacity));
  }

  get size(): number {
    return this.length;
  }

  append(chunk: Uint8Array): void {
    // Only the last `capacity` bytes of a chunk larger than the ring can survive.
    const kept = chunk.byteLength > this.capacity ? chunk.subarray(chunk.byteLength - this.capacity) : chunk;
    if (this.length + kept.byteLength > this.buffer.byteLength && this.buffer.byteLength < this.capacity) this.grow(this.length + kept.byteLength);
    const size = this.buffer.byteLength;
    const first = Math.min(kept.byteLength, size - this.end);
    this.buffer.set(kept.subarray(0, first), this.end);
    this.buffer.set(kept.subarray(first), 0);
    this.end = (this.end + kept.byteLength) % size;
    this.length = Math.min(size, this.length + kept.byteLength);
  }

  /** A copy of what is kept, oldest byte first. */
  contents(): Uint8Array {
    const size = this.buffer.byteLength;
    const start = (this.end - this.length + size) % size;
    if (start + this.length <= size) return this.buffer.slice(start, start + this.length);
    const out = new Uint8Array(this.length);
    out.set(this.buffer.subarray(start));
    out.set(this.buffer.subarray(0, this.end), size - start);
    return out;
  }

  /** Room for `needed` bytes (at most `capacity`), the contents moved to the start. */
  private grow(needed: number): void {
    const contents = this.contents();
    this.buffer = new Uint8Array(Math.min(this.capacity, Math.max(needed, 2 * this.buffer.byteLength)));
    this.buffer.set(contents);
    this.end = contents.byteLength % this.buffer.byteLength;
  }
}
