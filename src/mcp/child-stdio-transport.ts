import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioChild } from "../process/stdio-child.ts";

type StdioCodec = typeof import("@modelcontextprotocol/sdk/shared/stdio.js");

/**
 * MCP over the stdio of a child Atrium started and recorded (its own process group, stopped with
 * everything it started): the SDK's own stdio transport spawns without a group, so a server's
 * children could outlive a probe. Messages are framed with the SDK's codec.
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(
    private readonly child: StdioChild,
    private readonly codec: StdioCodec,
  ) {}

  async start(): Promise<void> {
    void this.read();
  }

  private async read(): Promise<void> {
    const buffer = new this.codec.ReadBuffer();
    try {
      for await (const chunk of this.child.stdout) {
        buffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (error) {
      this.onerror?.(error as Error);
    } finally {
      this.finish();
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.child.write(this.codec.serializeMessage(message));
  }

  async close(): Promise<void> {
    this.child.stop();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
