import { expect, test } from "bun:test";
import { describeAgentError } from "../../../src/sessions/acp/agent-errors.ts";

const rpcError = (message: string, data?: unknown) => Object.assign(new Error(message), { code: -32603, data });

test("a provider's JSON error body passed on as the message is shown by its own message", () => {
  // Gemini CLI passes the body verbatim; codex-acp after "Internal error: ".
  expect(describeAgentError(rpcError('{"error":{"code":400,"message":"no model here","status":"INVALID_ARGUMENT"}}'))).toBe("no model here");
  expect(describeAgentError(rpcError('Internal error: {"type":"error","status":400,"error":{"message":"quota exceeded","type":"x"}}'))).toBe(
    "Internal error: quota exceeded",
  );
  expect(describeAgentError(rpcError("Internal error", { message: '{"error":"overloaded"}' }))).toBe("Internal error: overloaded");
});

test("a message that only looks like JSON, or JSON without a message, stays as it is", () => {
  expect(describeAgentError(rpcError("Internal error: {not json}"))).toBe("Internal error: {not json}");
  expect(describeAgentError(rpcError('Internal error: {"code":5}'))).toBe('Internal error: {"code":5}');
  expect(describeAgentError(rpcError("plain words"))).toBe("plain words");
});
