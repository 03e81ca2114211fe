import type * as NodeCrypto from "node:crypto";

/**
 * node:crypto, loaded by the code that needs it (https certificates) rather than at every start:
 * loading it costs about 10 ms. Tokens, ids and the machine id use Web Crypto and Bun's hasher.
 */
export const nodeCrypto = (): typeof NodeCrypto => require("node:crypto") as typeof NodeCrypto;
